import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { FakeGraphApi } from './support/fake-graph-api';
import {
  givenOutgoingMessage,
  givenWhatsappChannel,
  givenWhatsappNotification,
} from './support/given';
import { aWhatsappStatus } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'meta-app-secret-status-race';
const TEMPLATE = { name: 'order_update', language: 'en_US', parameters: ['Thursday'] };

/**
 * A `delivered` status that Meta sends while the send's own result is being written: whichever of
 * the two transactions commits second must apply the other's work. Each order is forced: a
 * deferred trigger holds one transaction at its commit (after all its reads and writes) until the
 * test lets it go, and the other runs meanwhile as far as it can. PGlite runs one transaction at
 * a time, so the race exists on PostgreSQL only.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/** The transaction that writes these rows waits at its commit until `release()`. */
const HOLD_AT_COMMIT = `
  CREATE TABLE IF NOT EXISTS test_release (released boolean);
  CREATE OR REPLACE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    WHILE NOT EXISTS (SELECT 1 FROM test_release) LOOP PERFORM pg_sleep(0.02); END LOOP;
    RETURN NULL;
  END $$;`;

const HOLDS = {
  'the status': `CREATE CONSTRAINT TRIGGER test_hold AFTER INSERT ON channel_message_statuses
                   DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_hold()`,
  "the send's result": `CREATE CONSTRAINT TRIGGER test_hold AFTER UPDATE ON deliveries
                   DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
                   WHEN (OLD.wa_message_id IS NULL AND NEW.wa_message_id IS NOT NULL)
                   EXECUTE FUNCTION test_hold()`,
};
const HELD_TABLE = { 'the status': 'channel_message_statuses', "the send's result": 'deliveries' };

onPostgres.each([
  ['agent events off', {}],
  [
    'agent events on',
    // Events are only stored here (nothing listens): with them on, the send's result applies
    // early statuses inside its own transaction, the order where the race bit hardest.
    { AGENT_EVENTS_URL: 'http://127.0.0.1:9/events', AGENT_EVENTS_SECRET: 'x'.repeat(32) },
  ],
])('A status racing its send’s result (e2e, PostgreSQL, %s)', (_mode, env) => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let auth: Record<string, string>;
  const sql = <T>(text: string, parameters: unknown[] = []) =>
    t.app.get(DataSource).query(text, parameters) as Promise<T>;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startApp({
      SCHEDULER_ENABLED: 'true',
      SCHEDULER_TICK_MS: '50',
      GRAPH_API_URL: graph.url,
      GRAPH_API_TIMEOUT_MS: '5000',
      META_APP_SECRET: SECRET,
      ...env,
    });
    await sql(HOLD_AT_COMMIT);
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });
  beforeEach(async () => {
    graph.reset();
    auth = bearer(tokenFor({ org: newOrganization() }));
    await sql('DELETE FROM test_release');
  });
  afterEach(async () => {
    await sql('INSERT INTO test_release VALUES (true)');
    for (const table of Object.values(HELD_TABLE)) {
      await sql(`DROP TRIGGER IF EXISTS test_hold ON ${table}`);
    }
  });

  /** Backends of this app's database waiting at a commit hold, or on an advisory lock. */
  const waiting = async (on: 'hold' | 'lock') =>
    Number(
      (
        await sql<{ n: string }[]>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND ${on === 'hold' ? "wait_event = 'PgSleep'" : "wait_event = 'advisory'"}`,
        )
      )[0].n,
    );
  const deliveryStatus = async (id: string) =>
    (await sql<{ status: string }[]>('SELECT status FROM deliveries WHERE id = $1', [id]))[0]
      ?.status;
  const inboxDone = async (channelId: string) =>
    (
      await sql<{ status: string }[]>('SELECT status FROM webhook_inbox WHERE channel_id = $1', [
        channelId,
      ])
    ).every((row) => row.status === 'processed');

  it.each(['the status', "the send's result"] as const)(
    'applies `delivered` when %s commits first, held at its commit while the other runs',
    async (first) => {
      const channel = await givenWhatsappChannel(t, auth);
      await sql(HOLDS[first]);
      // The status must arrive while the send waits for Meta's answer: the fake keeps the message
      // at once and answers a second later.
      graph.latencyMs = first === 'the status' ? 1_000 : 0;
      const deliveryId = (await givenOutgoingMessage(t, auth, channel, { template: TEMPLATE })).id;
      const [message] = await graph.waitForMessages(1);
      const notifyDelivered = () =>
        givenWhatsappNotification(t, channel, SECRET, {
          statuses: [aWhatsappStatus(message.wamid, 'delivered')],
        });

      if (first === 'the status') {
        await notifyDelivered();
        await eventually(async () => expect(await waiting('hold')).toBe(1));
        // Held before Meta answered the send: the race this test is about.
        expect(await deliveryStatus(deliveryId)).toBe('sending');
        // The send's result is written now: it waits for the status's locks (or, without them,
        // commits and reads no status).
        await eventually(
          async () =>
            expect(
              (await waiting('lock')) === 1 || (await deliveryStatus(deliveryId)) === 'sent',
            ).toBe(true),
          10_000,
        );
      } else {
        await eventually(async () => expect(await waiting('hold')).toBe(1));
        await notifyDelivered();
        // The status is processed now: it waits for the result's locks (or, without them, finds
        // no delivery with the id yet and is stored only).
        await eventually(
          async () =>
            expect((await waiting('lock')) === 1 || (await inboxDone(channel.id))).toBe(true),
          10_000,
        );
      }
      await sql('INSERT INTO test_release VALUES (true)');
      await eventually(async () => expect(await deliveryStatus(deliveryId)).toBe('delivered'));
    },
    30_000,
  );
});
