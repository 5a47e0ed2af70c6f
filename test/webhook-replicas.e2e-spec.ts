import { eventually } from './support/eventually';
import { FakeGraphApi } from './support/fake-graph-api';
import { givenFollowUp, givenWhatsappChannel } from './support/given';
import * as meta from './support/meta-payloads';
import {
  aWhatsappStatus,
  aWhatsappText,
  forWhatsappNumber,
  postToWebhook,
  whatsappNotification,
} from './support/meta-webhooks';
import { queryOn } from './support/replica-processes';
import { bearer, createTestDatabase, startApp, TestApp, tokenFor } from './support/test-app';

/**
 * Replicas on one PostgreSQL: Meta's notifications (each sent twice, as Meta resends) land on two
 * app instances that only receive, while a third sends follow-ups. Nothing is lost and nothing is
 * applied twice. Three Nest applications with their own pools, inboxes and workers, in this test
 * process; PGlite serves one application, so this runs only with TEST_DATABASE_URL.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

const SECRET = 'meta-app-secret-replicas';
/** Meta's example of each type (test/support/meta-payloads.ts). */
const EVERY_TYPE = [
  meta.waImage,
  meta.waVoice,
  meta.waDocument,
  meta.waStickerAnimated,
  meta.waLocation,
  meta.waContacts,
  meta.waButtonReply,
  meta.waTemplateQuickReply,
  meta.waReaction,
  meta.waOrder,
  meta.waEdit,
  meta.waRevoke,
  meta.waUnsupported,
  meta.waBsuidUsernameNoPhone,
];
const NUMBERS = 20;
const INBOUND = 60;

onPostgres('Webhooks on replicas (e2e, PostgreSQL)', () => {
  let graph: FakeGraphApi;
  let database: { url: string; drop: () => Promise<void> };
  let receivers: TestApp[];
  let sender: TestApp;
  const auth = bearer(tokenFor({ org: 'org-webhook-replicas' }));

  const query = <T>(sql: string, parameters: unknown[] = []) =>
    queryOn(database.url)<T>(sql, parameters);

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    database = (await createTestDatabase())!;
    const env = { DATABASE_URL: database.url, META_APP_SECRET: SECRET, GRAPH_API_URL: graph.url };
    receivers = [
      await startApp({ ...env, SCHEDULER_ENABLED: 'false' }),
      await startApp({ ...env, SCHEDULER_ENABLED: 'false' }),
    ];
    sender = await startApp({
      ...env,
      SCHEDULER_ENABLED: 'true',
      SCHEDULER_TICK_MS: '50',
      CHANNEL_RATE_LIMIT_PER_SECOND: '0',
    });
  });
  afterAll(async () => {
    for (const app of [...receivers, sender]) await app.close();
    await database.drop();
    await graph.close();
  });

  it('keeps every message and status once, whichever replica gets it and however often', async () => {
    const channel = await givenWhatsappChannel(receivers[0], auth);
    const phones = Array.from(
      { length: NUMBERS },
      (_, n) => `+3461234${String(n).padStart(4, '0')}`,
    );
    await givenFollowUp(receivers[1], auth, channel.id, {
      frequency: 'once',
      client_phone_numbers: phones,
    });
    const sent = await graph.waitForMessages(NUMBERS);

    // Meta's notifications: the clients' messages and the statuses of what was sent (read before
    // delivered for half of them), each POSTed to both receivers at once.
    const now = Date.now();
    const notifications: unknown[] = [];
    // Every documented type, in Meta's example shapes, a user known only by a BSUID among them.
    for (let i = 0; i < INBOUND; i++) {
      const payload =
        i % 2 === 0
          ? whatsappNotification(channel.number_id, {
              messages: [aWhatsappText({ from: phones[i % NUMBERS].slice(1), at: now })],
            })
          : forWhatsappNumber(EVERY_TYPE[(i >> 1) % EVERY_TYPE.length], channel.number_id, {
              at: now,
            });
      const [message] = (
        payload as { entry: { changes: { value: { messages: Record<string, unknown>[] } }[] }[] }
      ).entry[0].changes[0].value.messages;
      message.id = `wamid.inbound-${i}`;
      notifications.push(payload);
    }
    sent.forEach((message, i) => {
      const status = (name: string, offset: number) =>
        aWhatsappStatus(message.wamid, name, { at: now + offset * 1000, recipient_id: message.to });
      const order =
        i % 2 === 0
          ? [status('delivered', 1), status('read', 2)]
          : [status('read', 2), status('delivered', 1)];
      for (const one of order) {
        notifications.push(whatsappNotification(channel.number_id, { statuses: [one] }));
      }
    });
    const post = (app: TestApp, payload: unknown) =>
      postToWebhook(app, 'whatsapp', channel.id, payload, SECRET).expect(200);
    for (let i = 0; i < notifications.length; i += 10) {
      await Promise.all(
        notifications
          .slice(i, i + 10)
          .flatMap((payload) => receivers.map((app) => post(app, payload))),
      );
    }

    await eventually(async () => {
      const [pending] = await query<{ n: string }>(
        "SELECT count(*) AS n FROM webhook_inbox WHERE status = 'pending'",
      );
      expect(Number(pending.n)).toBe(0);
    }, 30_000);
    const [stored] = await query<{ rows: string; distinct_ids: string; types: string }>(
      `SELECT count(*) AS rows, count(DISTINCT message_id) AS distinct_ids,
              count(DISTINCT type) AS types FROM channel_messages`,
    );
    expect({
      rows: Number(stored.rows),
      distinct: Number(stored.distinct_ids),
      types: Number(stored.types),
    }).toEqual({ rows: INBOUND, distinct: INBOUND, types: 14 });
    const [whole] = await query<{ with_content: string; with_raw: string; user_only: string }>(
      `SELECT count(*) FILTER (WHERE content IS NOT NULL) AS with_content,
              count(*) FILTER (WHERE raw IS NOT NULL) AS with_raw,
              count(*) FILTER (WHERE sender IS NULL AND sender_user_id IS NOT NULL) AS user_only
         FROM channel_messages`,
    );
    // Each odd notification carries a type with content, but for unsupported and the BSUID text.
    expect(Number(whole.with_raw)).toBe(INBOUND);
    expect(Number(whole.with_content)).toBe(
      Array.from({ length: INBOUND / 2 }, (_, n) => EVERY_TYPE[n % EVERY_TYPE.length]).filter(
        (payload) => payload !== meta.waUnsupported && payload !== meta.waBsuidUsernameNoPhone,
      ).length,
    );
    expect(Number(whole.user_only)).toBeGreaterThan(0);
    const [inbox] = await query<{ n: string; malformed: string }>(
      "SELECT count(*) AS n, count(*) FILTER (WHERE status = 'malformed') AS malformed FROM webhook_inbox",
    );
    // Each notification is one row, whichever replica stored it first.
    expect({ rows: Number(inbox.n), malformed: Number(inbox.malformed) }).toEqual({
      rows: notifications.length,
      malformed: 0,
    });
    const [statuses] = await query<{ n: string }>(
      'SELECT count(*) AS n FROM channel_message_statuses',
    );
    expect(Number(statuses.n)).toBe(NUMBERS * 2);
    const deliveries = await query<{ status: string; delivered: boolean; read: boolean }>(
      'SELECT status, delivered_at IS NOT NULL AS delivered, read_at IS NOT NULL AS read FROM deliveries',
    );
    expect(deliveries).toHaveLength(NUMBERS);
    expect(deliveries.every((d) => d.status === 'read' && d.delivered && d.read)).toBe(true);
    // One call to Meta per number: the webhooks did not make the sender send anything again.
    expect(graph.messages).toHaveLength(NUMBERS);
  });
});
