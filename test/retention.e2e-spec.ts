import { DataSource } from 'typeorm';
import { Retention } from '../src/database/retention';
import { uuidv7 } from '../src/common/ids';
import { eventually } from './support/eventually';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import {
  givenInboundMessage,
  givenOutgoingMessage,
  givenWhatsappChannel,
  WhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import { postToWebhook } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const DAY = 24 * 60 * 60 * 1000;
const SECRET = 'retention-app-secret';
/** Meta refuses every send to this number for a while: its delivery stays open, retrying. */
const UNREACHABLE = '34600000001';

describe('Retention (e2e)', () => {
  let graph: FakeGraphApi;
  let clock: ManualClock;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    graph.respondWith((request) =>
      request.to === UNREACHABLE
        ? graphErrorReply(503, 2, 'Service temporarily unavailable')
        : undefined,
    );
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    // RETENTION_DAYS is left at its default, 30.
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        META_APP_SECRET: SECRET,
      },
      { clock },
    );
    auth = bearer(tokenFor({ org: newOrganization() }));
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const db = () => t.app.get(DataSource);
  const inbox = async (channelId: string) =>
    (
      (await db().query(
        'SELECT status FROM webhook_inbox WHERE channel_id = $1 ORDER BY received_at, status',
        [channelId],
      )) as { status: string }[]
    ).map((row) => row.status);
  const attempts = async (deliveryId: string) =>
    (
      (await db().query(
        'SELECT attempt FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt',
        [deliveryId],
      )) as { attempt: number }[]
    ).map((row) => Number(row.attempt));
  const deliveryStatus = async (deliveryId: string) =>
    (
      (await db().query('SELECT status FROM deliveries WHERE id = $1', [deliveryId])) as {
        status: string;
      }[]
    )[0]?.status;
  const sendNow = async (channel: WhatsappChannel, to: string) =>
    (await givenOutgoingMessage(t, auth, channel, { to })).id;
  const notify = (channel: WhatsappChannel, body: string) =>
    givenInboundMessage(t, channel, SECRET, { body, at: clock.now() });

  it('prunes processed notifications and finished deliveries’ attempts after 30 days, never a pending notification or an open delivery’s', async () => {
    const channel = await givenWhatsappChannel(t, auth);

    // Day 0: a processed notification, one set aside (not JSON), and one not processed yet (as a
    // crash between storing and processing leaves it; due later than this test reaches).
    await notify(channel, 'day 0');
    await postToWebhook(t, 'whatsapp', channel.id, 'not json', SECRET).expect(200);
    await db().query(
      `INSERT INTO webhook_inbox (id, organization_id, channel_kind, channel_id, body, body_sha256,
                                  status, attempts, next_attempt_at, received_at)
       VALUES ($1, $2, 'whatsapp', $3, $4, $5, 'pending', 0, $6, $7)`,
      [
        uuidv7(clock.now()),
        channel.organization_id,
        channel.id,
        Buffer.from('{}'),
        'pending-sha',
        new Date(clock.now() + 365 * DAY).toISOString(),
        new Date(clock.now()).toISOString(),
      ],
    );
    await eventually(async () =>
      expect(await inbox(channel.id)).toEqual(['malformed', 'pending', 'processed']),
    );
    // A delivery that went out, and one that Meta keeps refusing (pending, to be retried).
    const sent = await sendNow(channel, '+34612345678');
    const open = await sendNow(channel, `+${UNREACHABLE}`);
    await eventually(async () => {
      expect(await deliveryStatus(sent)).toBe('sent');
      expect(await deliveryStatus(open)).toBe('pending');
      expect(await attempts(sent)).toEqual([1]);
      expect(await attempts(open)).toEqual([1]);
    });

    // Day 29: nothing is old enough yet; a new notification arrives.
    clock.advance(29 * DAY);
    await notify(channel, 'day 29');
    await eventually(async () => expect(await inbox(channel.id)).toHaveLength(4));
    const retention = t.app.get(Retention);
    expect(await retention.pruneExpired()).toEqual({ webhook_inbox: 0, delivery_attempts: 0 });

    // Day 31: two replicas prune at once, in batches of one row; each row goes once.
    clock.advance(2 * DAY);
    const [first, second] = await Promise.all([
      retention.pruneExpired(1),
      retention.pruneExpired(1),
    ]);
    expect(first.webhook_inbox + second.webhook_inbox).toBe(2);
    expect(first.delivery_attempts + second.delivery_attempts).toBe(1);
    expect(await inbox(channel.id)).toEqual(['pending', 'processed']);
    expect(await attempts(sent)).toEqual([]);
    // The open delivery keeps its history (it may have been tried again since the clock moved).
    expect((await attempts(open))[0]).toBe(1);
    // The deliveries themselves stay, with their outcome.
    expect(await deliveryStatus(sent)).toBe('sent');
    // Still open: due again since the clock moved, it may be being retried right now.
    expect(['pending', 'sending']).toContain(await deliveryStatus(open));
    // Nothing more to do: pruning again deletes nothing.
    expect(await retention.pruneExpired()).toEqual({ webhook_inbox: 0, delivery_attempts: 0 });
  });

  it('keeps everything with RETENTION_DAYS=0', async () => {
    const keeper = await startApp({ RETENTION_DAYS: '0', META_APP_SECRET: SECRET }, { clock });
    try {
      const channel = await givenWhatsappChannel(keeper, auth);
      await postToWebhook(keeper, 'whatsapp', channel.id, 'not json', SECRET).expect(200);
      clock.advance(3650 * DAY);
      expect(await keeper.app.get(Retention).pruneExpired()).toEqual({});
      const rows = (await keeper.app
        .get(DataSource)
        .query('SELECT id FROM webhook_inbox WHERE channel_id = $1', [channel.id])) as unknown[];
      expect(rows).toHaveLength(1);
    } finally {
      await keeper.close();
    }
  });
});
