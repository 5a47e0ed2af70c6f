import { Client } from 'pg';
import { eventually } from './support/eventually';
import { aWhatsappChannel } from './support/factories';
import { FakeGraphApi, ReceivedMessage } from './support/fake-graph-api';
import { ServiceProcess } from './support/service-process';
import { bearer, createTestDatabase, startApp, tokenFor } from './support/test-app';

/**
 * Real service processes on one PostgreSQL database: crashes and replicas. PGlite serves one
 * process, so this suite runs only with TEST_DATABASE_URL.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

const FOLLOW_UPS = 40;
const NUMBERS = 10;
const CONCURRENCY = 8;

interface Setup {
  databaseUrl: string;
  expected: Set<string>;
  query: <T>(sql: string) => Promise<T[]>;
  drop: () => Promise<void>;
}

/** Creates a channel and FOLLOW_UPS x NUMBERS `once` follow-ups through the API of an idle app. */
async function setUp(): Promise<Setup> {
  const database = (await createTestDatabase())!;
  const app = await startApp({ DATABASE_URL: database.url, SCHEDULER_ENABLED: 'false' });
  const auth = bearer(tokenFor({ org: 'org-replicas' }));
  const channel = (
    await app.http().post('/v1/channels/whatsapp').set(auth).send(aWhatsappChannel()).expect(201)
  ).body.data;
  const expected = new Set<string>();
  for (let f = 0; f < FOLLOW_UPS; f++) {
    const phones = Array.from(
      { length: NUMBERS },
      (_, n) => `+346${String(f).padStart(4, '0')}${String(n).padStart(4, '0')}`,
    );
    phones.forEach((phone) => expected.add(`F${f}|${phone.slice(1)}`));
    await app
      .http()
      .post('/v1/scheduler/follow-up/whatsapp')
      .set(auth)
      .send({
        agent_id: 'agent-1',
        channel_id: channel.id,
        client_phone_numbers: phones,
        frequency: 'once',
        title: `F${f}`,
        prompt: '{{title}}',
      })
      .expect(201);
  }
  await app.app.close(); // keep the database: the processes below use it
  const query = async <T>(sql: string): Promise<T[]> => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return { databaseUrl: database.url, expected, query, drop: database.drop };
}

const keyOf = (message: ReceivedMessage) => `${message.body}|${message.to}`;

function countByKey(messages: ReceivedMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of messages) counts.set(keyOf(message), (counts.get(keyOf(message)) ?? 0) + 1);
  return counts;
}

onPostgres('Replicas and crashes (e2e, PostgreSQL)', () => {
  let graph: FakeGraphApi;
  let setup: Setup;
  const processes: ServiceProcess[] = [];

  const start = (extra: Record<string, string> = {}) => {
    const service = ServiceProcess.start({
      DATABASE_URL: setup.databaseUrl,
      GRAPH_API_URL: graph.url,
      SCHEDULER_TICK_MS: '200',
      DELIVERY_CONCURRENCY: String(CONCURRENCY),
      GRAPH_API_TIMEOUT_MS: '1000',
      DELIVERY_LEASE_MS: '3000',
      CHANNEL_RATE_LIMIT_PER_SECOND: '0',
      ...extra,
    });
    processes.push(service);
    return service;
  };

  const openDeliveries = async () =>
    Number(
      (
        await setup.query<{ n: string }>(
          "SELECT count(*) AS n FROM deliveries WHERE status IN ('pending', 'sending')",
        )
      )[0].n,
    );

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
  });
  afterAll(async () => graph.close());
  beforeEach(async () => {
    graph.reset();
    setup = await setUp();
  });
  afterEach(async () => {
    for (const service of processes.splice(0)) {
      service.kill('SIGKILL');
      await service.exited;
    }
    await setup.drop();
  });

  it('three processes deliver every (follow-up, occurrence, number) exactly once, sharing the work', async () => {
    graph.latencyMs = 30;
    // Hold the follow-ups back until all three processes are up, so that all three compete.
    await setup.query("UPDATE follow_ups SET next_run_at = now() + interval '1 hour'");
    const services = [
      start({ LOG_LEVEL: 'info' }),
      start({ LOG_LEVEL: 'info' }),
      start({ LOG_LEVEL: 'info' }),
    ];
    await Promise.all(services.map((service) => service.waitForOutput('agentline listening')));
    await setup.query('UPDATE follow_ups SET next_run_at = now()');
    await graph.waitForMessages(FOLLOW_UPS * NUMBERS, 120_000);
    await eventually(async () => expect(await openDeliveries()).toBe(0), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const counts = countByKey(graph.messages);
    expect(new Set(counts.keys())).toEqual(setup.expected);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
    expect(graph.messages).toHaveLength(FOLLOW_UPS * NUMBERS);
    const statuses = await setup.query<{ status: string; n: string }>(
      'SELECT status, count(*) AS n FROM deliveries GROUP BY status',
    );
    expect(statuses).toEqual([{ status: 'sent', n: String(FOLLOW_UPS * NUMBERS) }]);
    const senders = await setup.query<{ sent_by: string }>(
      'SELECT DISTINCT sent_by FROM deliveries',
    );
    expect(senders.length).toBeGreaterThanOrEqual(2);
  });

  it('loses nothing when a process is killed mid-delivery, and repeats only calls in flight', async () => {
    graph.latencyMs = 20;
    const victim = start();
    await graph.waitForMessages(FOLLOW_UPS * NUMBERS * 0.3, 120_000);
    victim.kill('SIGKILL');
    await victim.exited;
    const sentBeforeKill = graph.messages.length;
    expect(sentBeforeKill).toBeLessThan(FOLLOW_UPS * NUMBERS);

    start();
    await eventually(async () => expect(await openDeliveries()).toBe(0), 120_000, 200);
    const counts = countByKey(graph.messages);
    expect(new Set(counts.keys())).toEqual(setup.expected);
    const repeated = [...counts.values()].filter((n) => n > 1);
    // Only sends in flight at the kill may repeat: at most one per concurrent sender.
    expect(repeated.every((n) => n === 2)).toBe(true);
    expect(repeated.length).toBeLessThanOrEqual(CONCURRENCY);
  });

  it('on SIGTERM mid-delivery stops claiming, finishes or releases its work, and leaves nothing claimed', async () => {
    graph.latencyMs = 20;
    const service = start({ SHUTDOWN_GRACE_MS: '3000' });
    await graph.waitForMessages(FOLLOW_UPS * NUMBERS * 0.2, 120_000);
    const stoppingAt = Date.now();
    service.kill('SIGTERM');
    const exit = await service.exited;
    // Nest re-raises the signal once its shutdown hooks have run.
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    expect(Date.now() - stoppingAt).toBeLessThan(10_000);
    const claimed = await setup.query<{ n: string }>(
      "SELECT count(*) AS n FROM deliveries WHERE status = 'sending'",
    );
    expect(claimed[0].n).toBe('0');
    const sentAtStop = graph.messages.length;
    expect(sentAtStop).toBeLessThan(FOLLOW_UPS * NUMBERS);

    // What it gave back is sent by the next process, nothing twice.
    start();
    await eventually(async () => expect(await openDeliveries()).toBe(0), 120_000, 200);
    const counts = countByKey(graph.messages);
    expect(new Set(counts.keys())).toEqual(setup.expected);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
  });

  it('on SIGTERM gives back, after the grace period, the sends that are still hanging', async () => {
    graph.respondWith(() => 'hang');
    const service = start({
      SHUTDOWN_GRACE_MS: '500',
      GRAPH_API_TIMEOUT_MS: '5000',
      DELIVERY_LEASE_MS: '7000',
    });
    await eventually(
      async () => expect(graph.requests).toBeGreaterThanOrEqual(CONCURRENCY),
      60_000,
      100,
    );
    service.kill('SIGTERM');
    await service.exited;
    const rows = await setup.query<{ status: string; attempts: number; n: string }>(
      'SELECT status, attempts, count(*) AS n FROM deliveries GROUP BY status, attempts',
    );
    // Nothing is left claimed, and the attempts that never got an answer are not counted.
    expect(rows).toEqual([{ status: 'pending', attempts: 0, n: String(FOLLOW_UPS * NUMBERS) }]);
    expect(graph.messages).toHaveLength(0);
  });
});
