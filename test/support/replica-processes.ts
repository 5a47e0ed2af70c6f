import { Client } from 'pg';
import { FakeGraphApi, ReceivedMessage } from './fake-graph-api';
import { givenFollowUp, givenWhatsappChannel } from './given';
import { ServiceProcess } from './service-process';
import { bearer, createTestDatabase, startApp, TestApp, tokenFor } from './test-app';

/**
 * Real service processes on one PostgreSQL database (replicas.e2e-spec.ts, and the tests of theirs
 * that carry a wall-clock bound, replicas.alone-spec.ts).
 */

/** PGlite serves one process: these suites run only with TEST_DATABASE_URL. */
export const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

export const FOLLOW_UPS = 40;
export const NUMBERS = 10;
export const CONCURRENCY = 8;
/** Test timings: a process is dead 2 s after its last beat (the default is 6 s). */
export const HEARTBEAT = { DELIVERY_HEARTBEAT_MS: '500', DELIVERY_HEARTBEAT_TIMEOUT_MS: '2000' };

export interface Setup {
  databaseUrl: string;
  expected: Set<string>;
  followUpIds: string[];
  query: <T>(sql: string, parameters?: unknown[]) => Promise<T[]>;
  /** An app without a scheduler on the same database, for API calls. */
  api: TestApp;
  auth: Record<string, string>;
  drop: () => Promise<void>;
}

/** Prints a figure the closing note of issue 7 reports. */
export const report = (text: string) => process.stdout.write(`[measure] ${text}\n`);

/** Creates `count` `once` follow-ups of NUMBERS numbers each, titled F{first}...; answers their ids. */
export async function addFollowUps(
  app: TestApp,
  auth: Record<string, string>,
  channelId: string,
  first: number,
  count: number,
  expected: Set<string>,
): Promise<string[]> {
  const ids: string[] = [];
  for (let f = first; f < first + count; f++) {
    const phones = Array.from(
      { length: NUMBERS },
      (_, n) => `+346${String(f).padStart(4, '0')}${String(n).padStart(4, '0')}`,
    );
    phones.forEach((phone) => expected.add(`F${f}|${phone.slice(1)}`));
    const created = await givenFollowUp(app, auth, channelId, {
      client_phone_numbers: phones,
      frequency: 'once',
      title: `F${f}`,
      prompt: '{{title}}',
    });
    ids.push(created.id);
  }
  return ids;
}

/** Creates a channel and FOLLOW_UPS x NUMBERS `once` follow-ups through the API of an idle app. */
export async function setUp(): Promise<Setup> {
  const database = (await createTestDatabase())!;
  const app = await startApp({ DATABASE_URL: database.url, SCHEDULER_ENABLED: 'false' });
  const auth = bearer(tokenFor({ org: 'org-replicas' }));
  const followUpIds: string[] = [];
  const channel = await givenWhatsappChannel(app, auth);
  const expected = new Set<string>();
  followUpIds.push(...(await addFollowUps(app, auth, channel.id, 0, FOLLOW_UPS, expected)));
  const query = queryOn(database.url);
  const drop = async () => {
    await app.app.close(); // the database is dropped below, not by the app
    await database.drop();
  };
  return { databaseUrl: database.url, expected, followUpIds, query, api: app, auth, drop };
}

/** Runs one statement on the database at `url`, on a connection of its own; answers its rows. */
export const queryOn =
  (url: string) =>
  async <T>(sql: string, parameters: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql, parameters)).rows as T[];
    } finally {
      await client.end();
    }
  };

export const keyOf = (message: ReceivedMessage) => `${message.body}|${message.to}`;

export function countByKey(messages: ReceivedMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of messages) counts.set(keyOf(message), (counts.get(keyOf(message)) ?? 0) + 1);
  return counts;
}

/**
 * Registers in the calling describe a Graph API fake for the suite and, per test, a database of
 * FOLLOW_UPS follow-ups whose processes are killed after the test; answers what the tests use.
 * `state` holds the current fake and set-up.
 */
export function replicaProcesses() {
  const state = {} as { graph: FakeGraphApi; setup: Setup };
  const processes: ServiceProcess[] = [];

  const start = (extra: Record<string, string> = {}) => {
    const service = ServiceProcess.start({
      DATABASE_URL: state.setup.databaseUrl,
      GRAPH_API_URL: state.graph.url,
      SCHEDULER_TICK_MS: '200',
      DELIVERY_CONCURRENCY: String(CONCURRENCY),
      GRAPH_API_TIMEOUT_MS: '1000',
      DELIVERY_LEASE_MS: '3000',
      CHANNEL_RATE_LIMIT_PER_SECOND: '0',
      SHUTDOWN_GRACE_MS: '3000',
      ...HEARTBEAT,
      ...extra,
    });
    processes.push(service);
    return service;
  };

  /** Kills `victim` with SIGKILL once this share of the messages went out; its process id and when. */
  const killAfterSends = async (victim: ServiceProcess, share: number) => {
    await state.graph.waitForMessages(FOLLOW_UPS * NUMBERS * share, 120_000);
    const [{ id: victimId }] = await state.setup.query<{ id: string }>(
      'SELECT id FROM scheduler_processes WHERE pid = $1',
      [victim.child.pid],
    );
    victim.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    return { victimId, killedAt };
  };

  const duplicates = () =>
    [...countByKey(state.graph.messages).values()].filter((n) => n > 1).length;

  const openDeliveries = async () =>
    Number(
      (
        await state.setup.query<{ n: string }>(
          "SELECT count(*) AS n FROM deliveries WHERE status IN ('pending', 'sending')",
        )
      )[0].n,
    );

  beforeAll(async () => {
    state.graph = await FakeGraphApi.start();
  });
  afterAll(async () => state.graph.close());
  beforeEach(async () => {
    state.graph.reset();
    state.setup = await setUp();
  });
  afterEach(async () => {
    for (const service of processes.splice(0)) {
      service.kill('SIGKILL');
      await service.exited;
    }
    await state.setup.drop();
  });

  return { state, start, killAfterSends, duplicates, openDeliveries };
}
