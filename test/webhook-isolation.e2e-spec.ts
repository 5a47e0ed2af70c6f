import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { WebhookInbox } from '../src/channels/webhooks/webhook-inbox';
import { eventually } from './support/eventually';
import {
  givenMessangerChannel,
  givenWhatsappChannel,
  givenWhatsappNotification,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import {
  aWhatsappText,
  messangerNotification,
  postToWebhook,
  whatsappNotification,
} from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'meta-app-secret-isolation';
/** Events stay in the durable outbox (nobody listens there): the test reads them from it. */
const NOWHERE = 'http://127.0.0.1:9/agent/events';

interface InboxRow {
  id: string;
  status: string;
  attempts: number;
  error: string | null;
}

interface SetAsideRow {
  path: string;
  item: string;
  reason: string;
  detail: string;
  content: string;
}

/**
 * Per-item isolation (issue 17, item 5): one unreadable item of a signed notification (NUL, an
 * unpaired surrogate, a timestamp beyond Date's range, an id of another type) is set aside with
 * its reason, counted, and the rest of the notification applies in the same processing.
 */
describe('Webhook items judged one by one (e2e)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let auth: Record<string, string>;
  let db: DataSource;

  beforeAll(async () => {
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    t = await startApp(
      {
        META_APP_SECRET: SECRET,
        // Agent events on: their payload is jsonb, which refuses what text columns let through.
        AGENT_EVENTS_URL: NOWHERE,
        AGENT_EVENTS_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      },
      { clock },
    );
    db = t.app.get(DataSource);
  });
  afterAll(async () => t?.close());
  beforeEach(() => {
    auth = bearer(tokenFor({ org: newOrganization() }));
  });

  const inbox = async (channelId: string) =>
    (await db.query('SELECT id, status, attempts, error FROM webhook_inbox WHERE channel_id = $1', [
      channelId,
    ])) as InboxRow[];
  /** The channel's notification, once processed (or set aside): never pending. */
  const processed = (channelId: string) =>
    eventually(async () => {
      const rows = await inbox(channelId);
      expect(rows.map((row) => row.status)).toEqual([expect.stringMatching(/processed|malformed/)]);
      return rows[0];
    });
  const setAside = async (inboxId: string) =>
    (await db.query(
      `SELECT path, item, reason, detail, content FROM webhook_items_set_aside
        WHERE inbox_id = $1 ORDER BY path`,
      [inboxId],
    )) as SetAsideRow[];
  const listed = async (kind: string, id: string) =>
    (await t.http().get(`/v1/channels/${kind}/${id}/messages`).set(auth).expect(200)).body.data
      .items as { message_id: string; text: string | null }[];
  /** message.received events queued for the agent, by Meta message id. */
  const toldTheAgent = async (channelId: string) =>
    (
      (await db.query(
        `SELECT payload FROM agent_events
          WHERE type = 'message.received' AND payload->>'channel_id' = $1`,
        [channelId],
      )) as { payload: { data: { message_id: string } } }[]
    ).map((row) => row.payload.data.message_id);
  const scrape = async () => (await t.http().get('/metrics').expect(200)).text;
  const counted = (text: string, labels: string): number => {
    const series = `agentline_webhook_set_aside_total{${labels}} `;
    const line = text.split('\n').find((l) => l.startsWith(series));
    return line === undefined ? 0 : Number(line.slice(series.length));
  };

  const text = (id: string, body: string, timestamp?: string) =>
    aWhatsappText({ id, body, at: clock.now(), timestamp });

  it('WhatsApp: stores the good message on the first processing and sets aside each bad item with its reason', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const before = await scrape();
    const raw = JSON.stringify(
      whatsappNotification(channel.number_id, {
        messages: [
          text('wamid.nul', 'hello\u0000world'),
          text('wamid.good', 'Where is my order?'),
          text('wamid.lone', 'broken \ud800 emoji'),
          text('wamid.far', 'from the future', '1e20'),
          { ...text('wamid.number-id', 'id as a number'), id: 12345 },
        ],
        statuses: [
          { id: 'wamid.out', status: 'delivered', timestamp: '1e20', recipient_id: '34612345678' },
        ],
      }),
    );
    // As Meta would write it: the unpaired surrogate as a JSON escape in the raw bytes.
    expect(raw).toContain('broken \\ud800 emoji');
    await postToWebhook(t, 'whatsapp', channel.id, raw, SECRET).expect(200);

    const row = await processed(channel.id);
    expect(row).toMatchObject({ status: 'malformed', attempts: 1 });
    expect((await listed('whatsapp', channel.id)).map((m) => [m.message_id, m.text])).toEqual([
      ['wamid.good', 'Where is my order?'],
    ]);
    expect(await toldTheAgent(channel.id)).toEqual(['wamid.good']);

    const items = await setAside(row.id);
    const messages = 'entry[0].changes[0].value.messages';
    expect(items.map((item) => [item.path, item.item, item.reason])).toEqual([
      [`${messages}[0]`, 'message', 'nul'],
      [`${messages}[2]`, 'message', 'lone_surrogate'],
      [`${messages}[3]`, 'message', 'timestamp_out_of_range'],
      [`${messages}[4]`, 'message', 'invalid_field'],
      ['entry[0].changes[0].value.statuses[0]', 'status', 'timestamp_out_of_range'],
    ]);
    // The item as Meta sent it, escaped so that PostgreSQL could keep it.
    expect(JSON.parse(items[0].content)).toMatchObject({ text: { body: 'hello\u0000world' } });
    expect(JSON.parse(items[1].content)).toMatchObject({ text: { body: 'broken \ud800 emoji' } });
    expect(items[2].detail).toBe('timestamp 1e20 is not an instant between 1970 and 9999');
    expect(row.error).toContain(`${messages}[0]: text.body must not contain NUL characters`);

    const after = await scrape();
    for (const [item, reason, times] of [
      ['message', 'nul', 1],
      ['message', 'lone_surrogate', 1],
      ['message', 'timestamp_out_of_range', 1],
      ['message', 'invalid_field', 1],
      ['status', 'timestamp_out_of_range', 1],
    ] as const) {
      const labels = `channel_kind="whatsapp",item="${item}",reason="${reason}"`;
      expect([item, reason, counted(after, labels) - counted(before, labels)]).toEqual([
        item,
        reason,
        times,
      ]);
    }
  });

  it('Messenger: the same, event by event', async () => {
    const channel = await givenMessangerChannel(t, auth);
    const psid = '6543210987';
    const at = clock.now();
    const raw = JSON.stringify(
      messangerNotification(channel.user_id, psid, [
        { timestamp: at, message: { mid: 'm_nul', text: 'stop\u0000' } },
        { timestamp: at, message: { mid: 'm_good', text: 'Is the shop open?' } },
        { timestamp: at, message: { mid: 'm_lone', text: '\udc00 half' } },
        { timestamp: 1e20, message: { mid: 'm_far', text: 'later' } },
        { timestamp: at, read: { watermark: 1e20 } },
        // Meta's documented delivery: no timestamp, the watermark says when.
        { delivery: { mids: ['m_sent_earlier'], watermark: at - 1000 } },
      ]),
    );
    expect(raw).toContain('\\udc00 half');
    await postToWebhook(t, 'messanger', channel.id, raw, SECRET).expect(200);

    const row = await processed(channel.id);
    expect(row).toMatchObject({ status: 'malformed', attempts: 1 });
    expect((await listed('messanger', channel.id)).map((m) => m.message_id)).toEqual(['m_good']);
    expect(await toldTheAgent(channel.id)).toEqual(['m_good']);
    expect((await setAside(row.id)).map((item) => [item.path, item.item, item.reason])).toEqual([
      ['entry[0].messaging[0]', 'message', 'nul'],
      ['entry[0].messaging[2]', 'message', 'lone_surrogate'],
      ['entry[0].messaging[3]', 'message', 'timestamp_out_of_range'],
      ['entry[0].messaging[4]', 'status', 'timestamp_out_of_range'],
    ]);
    // The delivery applied: its status is recorded once, as for any other, for its mids and for
    // every message up to its watermark.
    expect(
      await db.query(
        'SELECT message_id, status FROM channel_message_statuses WHERE channel_id = $1 ORDER BY message_id',
        [channel.id],
      ),
    ).toEqual([
      { message_id: 'm_sent_earlier', status: 'delivered' },
      { message_id: `watermark:${psid}:${at - 1000}`, status: 'delivered' },
    ]);
  });

  it('a notification whose items all read is processed, and nothing is set aside', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    await givenWhatsappNotification(t, channel, SECRET, {
      messages: [text('wamid.fine', 'fine')],
    });
    const row = await processed(channel.id);
    expect(row).toMatchObject({ status: 'processed', attempts: 1, error: null });
    expect(await setAside(row.id)).toEqual([]);
  });

  describe('behind the checks', () => {
    /** Makes PostgreSQL itself refuse messages by their text, as it would refuse a value nobody foresaw. */
    const refuseInSql = (...rules: [body: string, sqlState: string][]) =>
      db.query(`
        CREATE OR REPLACE FUNCTION refuse_in_test() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${rules
            .map(
              ([body, sqlState]) =>
                `IF NEW.text = '${body}' THEN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '${sqlState}'; END IF;`,
            )
            .join('\n')}
          RETURN NEW;
        END $$;
        DROP TRIGGER IF EXISTS refuse_in_test ON channel_messages;
        CREATE TRIGGER refuse_in_test BEFORE INSERT ON channel_messages
          FOR EACH ROW EXECUTE FUNCTION refuse_in_test();`);
    afterEach(() => db.query('DROP TRIGGER IF EXISTS refuse_in_test ON channel_messages'));

    it('sets aside an item PostgreSQL refuses (a data exception), in a savepoint: the others stay', async () => {
      await refuseInSql(['unstorable', '22023']);
      const channel = await givenWhatsappChannel(t, auth);
      await givenWhatsappNotification(t, channel, SECRET, {
        messages: [
          text('wamid.before', 'before'),
          text('wamid.refused', 'unstorable'),
          text('wamid.after', 'after'),
        ],
      });
      const row = await processed(channel.id);
      expect(row).toMatchObject({ status: 'malformed', attempts: 1 });
      expect((await listed('whatsapp', channel.id)).map((m) => m.message_id).sort()).toEqual([
        'wamid.after',
        'wamid.before',
      ]);
      expect((await toldTheAgent(channel.id)).sort()).toEqual(['wamid.after', 'wamid.before']);
      expect(await setAside(row.id)).toEqual([
        {
          path: 'entry[0].changes[0].value.messages[1]',
          item: 'message',
          reason: 'database_refused',
          detail: 'PostgreSQL refused it (22023): refused by the test',
          content: expect.stringContaining('"wamid.refused"'),
        },
      ]);
    });

    it('a batch with a poisoned notification loses none of the others: each applies alone, in its own transaction', async () => {
      // One refused item (set aside in a savepoint), one failure that is not about content (tried
      // again later); both in the same batch as two good notifications.
      await refuseInSql(['unstorable', '22023'], ['transient', '40001']);
      const channel = await givenWhatsappChannel(t, auth);
      const [{ organization_id: organizationId }] = (await db.query(
        'SELECT organization_id FROM whatsapp_channels WHERE id = $1',
        [channel.id],
      )) as { organization_id: string }[];
      const bodies = [
        [text('wamid.batch-1', 'one')],
        [text('wamid.batch-2a', 'two'), text('wamid.batch-2b', 'unstorable')],
        [text('wamid.batch-3', 'transient')],
        [text('wamid.batch-4', 'four')],
      ].map((messages) =>
        Buffer.from(JSON.stringify(whatsappNotification(channel.number_id, { messages }))),
      );
      // Stored as the route stores them, due only once the clock moves: the next drain takes
      // them together.
      const due = new Date(clock.now() + 30_000).toISOString();
      for (const body of bodies) {
        await db.query(
          `INSERT INTO webhook_inbox (id, organization_id, channel_kind, channel_id, body, body_sha256,
                                      status, attempts, next_attempt_at, received_at)
           VALUES ($1, $2, 'whatsapp', $3, $4, $5, 'pending', 0, $6, $6)`,
          [
            randomUUID(),
            organizationId,
            channel.id,
            body,
            createHash('sha256').update(body).digest('hex'),
            due,
          ],
        );
      }
      clock.advance(60_000);
      await t.app.get(WebhookInbox).drain();
      await eventually(async () => {
        const rows = await inbox(channel.id);
        expect(rows.map((row) => row.status).sort()).toEqual([
          'malformed',
          'pending',
          'processed',
          'processed',
        ]);
      });
      expect((await listed('whatsapp', channel.id)).map((m) => m.message_id).sort()).toEqual([
        'wamid.batch-1',
        'wamid.batch-2a',
        'wamid.batch-4',
      ]);
      expect((await toldTheAgent(channel.id)).sort()).toEqual([
        'wamid.batch-1',
        'wamid.batch-2a',
        'wamid.batch-4',
      ]);
      const rows = await inbox(channel.id);
      const malformed = rows.find((row) => row.status === 'malformed') as InboxRow;
      expect(await setAside(malformed.id)).toEqual([
        expect.objectContaining({
          path: 'entry[0].changes[0].value.messages[1]',
          reason: 'database_refused',
        }),
      ]);
      expect(rows.find((row) => row.status === 'pending')).toMatchObject({
        attempts: 1,
        error: expect.stringContaining('refused by the test'),
      });
    });

    it('tries a notification again as a whole when the failure is not about its content, and applies it once', async () => {
      // A serialization failure says nothing about the item: next time it may pass.
      await refuseInSql(['transient', '40001']);
      const channel = await givenWhatsappChannel(t, auth);
      await givenWhatsappNotification(t, channel, SECRET, {
        messages: [text('wamid.first', 'first'), text(`wamid.${randomUUID()}`, 'transient')],
      });
      const failed = await eventually(async () => {
        const [current] = await inbox(channel.id);
        expect(current).toMatchObject({ status: 'pending', attempts: 1 });
        return current;
      });
      expect(failed.error).toContain('refused by the test');
      // Rolled back whole: nothing of it applied, nothing set aside.
      expect(await listed('whatsapp', channel.id)).toEqual([]);
      expect(await setAside(failed.id)).toEqual([]);

      await db.query('DROP TRIGGER refuse_in_test ON channel_messages');
      clock.advance(60_000);
      await t.app.get(WebhookInbox).drain();
      const row = await processed(channel.id);
      expect(row).toMatchObject({ status: 'processed', attempts: 2, error: null });
      expect((await listed('whatsapp', channel.id)).map((m) => m.text).sort()).toEqual([
        'first',
        'transient',
      ]);
      expect(await toldTheAgent(channel.id)).toHaveLength(2);
    });
  });
});
