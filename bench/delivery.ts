/*
 * Delivery benchmark (not a test): `npm run bench -- --only=delivery`. Writes its section of
 * docs/benchmarks.md.
 *
 * Scenario A: 10,000 follow-ups x 10 numbers due at the same moment, against the fake Graph API
 * (in this process) with the per-channel rate limit lifted: deliveries per second, lag (send time
 * minus due time) p50/p99, peak RSS of the service processes. On PGlite (one process) and on
 * PostgreSQL with one and three processes.
 * Scenario B: lag of a single due follow-up on an idle system (PostgreSQL, one process).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { SecretBox } from '../src/common/crypto/secret-box';
import { loadConfig } from '../src/config/app-config';
import { dataSourceOptions, openDataSource } from '../src/database/data-source';
import { FakeGraphApi } from '../test/support/fake-graph-api';
import { benchDatabase, machine, percentile, root, writeSection } from './report';
import type { BenchOptions } from './run';

let FOLLOW_UPS = Number(process.env.BENCH_FOLLOW_UPS ?? 10_000);
const NUMBERS = 10;
const JWT_SECRET = randomBytes(32).toString('hex');
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const CHANNEL_ID = '01900000-0000-7000-8000-000000000001';
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '128';

type Sql = (text: string, params?: unknown[]) => Promise<unknown[]>;

interface Result {
  scenario: string;
  firstLag?: number;
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  maxLag: number;
  peakRssMb: number[];
}

/** A channel and FOLLOW_UPS `once` follow-ups, all due at `dueAt`. */
async function seed(sql: Sql, dueAt: number, followUps: number, numbers: number): Promise<void> {
  const box = new SecretBox(Buffer.from(ENCRYPTION_KEY, 'base64'));
  const now = new Date().toISOString();
  await sql(
    `INSERT INTO whatsapp_channels (id, organization_id, agent_id, number_id, access_token_encrypted, status,
       verification_token, created_by, created_at, updated_at)
     VALUES ($1, 'org-bench', 'agent-1', '1065403522', $2, 'active', $3, 'bench', $4, $4)
     ON CONFLICT DO NOTHING`,
    [
      CHANNEL_ID,
      box.encrypt('EAAG-bench', `whatsapp_channels:${CHANNEL_ID}:access_token`),
      randomBytes(16).toString('hex'),
      now,
    ],
  );
  await sql(
    `INSERT INTO follow_ups (id, organization_id, agent_id, channel_id, channel_type, client_phone_numbers,
       frequency, time_zone, prompt, title, description, status, anchor_at, next_run_at, created_by, created_at, updated_at)
     SELECT agentline_uuid_v7(), 'org-bench', 'agent-1', $1, 'Whatsapp',
            (SELECT jsonb_agg('+3460' || lpad((g * $4 + n)::text, 7, '0')) FROM generate_series(0, $4 - 1) n),
            'once', 'UTC', 'Hello, {{title}}', 'F' || g, NULL, 'active', $2, $2, 'bench', $2, $2
       FROM generate_series(0, $3 - 1) g`,
    [CHANNEL_ID, new Date(dueAt).toISOString(), followUps, numbers],
  );
}

function startService(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['dist/src/main.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      JWT_SECRET,
      ENCRYPTION_KEY,
      LOG_LEVEL: 'warn',
      SCHEDULER_TICK_MS: '1000',
      DELIVERY_CONCURRENCY: CONCURRENCY,
      CHANNEL_RATE_LIMIT_PER_SECOND: '0',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

const peakRssMb = (pid: number) =>
  Math.round(
    Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
  );

async function stop(services: ChildProcess[]): Promise<number[]> {
  const peaks = services.map((service) => peakRssMb(service.pid as number));
  await Promise.all(
    services.map(
      (service) =>
        new Promise<void>((done) => {
          service.once('exit', () => done());
          service.kill('SIGTERM');
        }),
    ),
  );
  return peaks;
}

async function postgres(): Promise<{ url: string; sql: Sql; drop: () => Promise<void> }> {
  const db = await benchDatabase('agentline_bench');
  const client = new Client({ connectionString: db.url });
  await client.connect();
  return {
    url: db.url,
    sql: async (text, params) => (await client.query(text, params)).rows,
    drop: async () => {
      await client.end();
      await db.drop();
    },
  };
}

/** Opens the database once through agentline's own migrations, so the schema is the real one. */
async function migrate(env: Record<string, string>): Promise<DataSource> {
  const config = loadConfig({ JWT_SECRET, ENCRYPTION_KEY, ...env });
  return openDataSource(dataSourceOptions(config));
}

function summarize(scenario: string, graph: FakeGraphApi, dueAt: number, peaks: number[]): Result {
  const lags = graph.messages.map((m) => m.receivedAt - dueAt).sort((a, b) => a - b);
  const last = Math.max(...graph.messages.map((m) => m.receivedAt));
  const seconds = (last - dueAt) / 1000;
  return {
    scenario,
    firstLag: lags[0],
    deliveries: graph.messages.length,
    seconds: Math.round(seconds * 10) / 10,
    perSecond: Math.round(graph.messages.length / seconds),
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    maxLag: lags[lags.length - 1],
    peakRssMb: peaks,
  };
}

async function burst(
  scenario: string,
  graph: FakeGraphApi,
  processes: number,
  embedded: boolean,
): Promise<Result> {
  graph.reset();
  const leadMs = 15_000 + processes * 3_000; // time for the processes to start before the due moment
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  const dueAt = Date.now() + leadMs;
  if (embedded) {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-bench-'));
    const dataSource = await migrate({ DATA_DIR: dataDir });
    await seed((text, params) => dataSource.query(text, params), dueAt, FOLLOW_UPS, NUMBERS);
    await dataSource.destroy();
    env = { DATA_DIR: dataDir };
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
  } else {
    const db = await postgres();
    (await migrate({ DATABASE_URL: db.url })).destroy();
    await seed(db.sql, dueAt, FOLLOW_UPS, NUMBERS);
    env = { DATABASE_URL: db.url };
    cleanup = db.drop;
  }
  const services = Array.from({ length: processes }, () =>
    startService({ ...env, GRAPH_API_URL: graph.url }),
  );
  await graph.waitForMessages(FOLLOW_UPS * NUMBERS, leadMs + 600_000);
  const peaks = await stop(services);
  await cleanup();
  return summarize(scenario, graph, dueAt, peaks);
}

async function singleLag(graph: FakeGraphApi, samples: number): Promise<Result> {
  graph.reset();
  const db = await postgres();
  (await migrate({ DATABASE_URL: db.url })).destroy();
  await seed(db.sql, Date.now() + 3_600_000, 0, 1);
  const [service] = [startService({ DATABASE_URL: db.url, GRAPH_API_URL: graph.url })];
  await new Promise((done) => setTimeout(done, 8_000));
  const lags: number[] = [];
  for (let i = 0; i < samples; i++) {
    const dueAt = Date.now() + 1_500;
    await seed(db.sql, dueAt, 1, 1);
    const [message] = (await graph.waitForMessages(i + 1, 10_000)).slice(i);
    lags.push(message.receivedAt - dueAt);
  }
  const peaks = await stop([service]);
  await db.drop();
  lags.sort((a, b) => a - b);
  return {
    scenario: `1 follow-up due on an idle system, PostgreSQL, 1 process (${samples} samples)`,
    deliveries: samples,
    seconds: 0,
    perSecond: 0,
    p50: percentile(lags, 50),
    p99: percentile(lags, 99),
    maxLag: lags[lags.length - 1],
    peakRssMb: peaks,
  };
}

function report(results: Result[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.scenario} | ${r.deliveries} | ${r.seconds || '–'} | ${r.perSecond || '–'} | ${r.p50} | ${r.p99} | ${r.maxLag} | ${r.peakRssMb.join(', ')} |`,
  );
  return [
    '| scenario | deliveries | drain (s) | deliveries/s | lag p50 (ms) | lag p99 (ms) | lag max (ms) | peak RSS per process (MiB) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const LIMITS = `### What limits it

- The burst scenarios measure a backlog, so lag grows with the position in the queue: p50 and
  p99 are roughly half and all of the drain time; the first message goes out a few hundred ms
  after the due moment (dispatch of the first 500 follow-ups, then delivery starts while the rest
  is dispatched).
- On this 2-core machine the service, PostgreSQL and the fake Graph API (which answers every
  request, in the benchmark's own process) share the two cores: three service processes do not
  go faster than one, because the cores, not the service, are the bottleneck.
- Each send costs one HTTP round trip plus its share of a claim transaction and of a group-commit
  outcome write (both fsync'd by PostgreSQL): an outcome is durable before its sender takes the
  next message, which is what bounds a crash to repeating the calls in flight.
- PGlite is PostgreSQL compiled to WebAssembly running inside the service process on one thread,
  serialising every query with the sends; it is the laptop default, not the production path.
`;

export async function runDeliveryBench({ quick }: BenchOptions): Promise<void> {
  if (quick && !process.env.BENCH_FOLLOW_UPS) FOLLOW_UPS = 1_000;
  const graph = await FakeGraphApi.start();
  const results: Result[] = [];
  const only = process.env.BENCH_ONLY;
  const run = async (key: string, scenario: () => Promise<Result>) => {
    if (only && !only.split(',').includes(key)) return;
    const result = await scenario();
    process.stdout.write(`${JSON.stringify(result)}\n`);
    results.push(result);
  };
  await run('single', () => singleLag(graph, quick ? 10 : 30));
  await run('pg1', () =>
    burst(`${FOLLOW_UPS} x ${NUMBERS} due at once, PostgreSQL, 1 process`, graph, 1, false),
  );
  if (!quick) {
    await run('pg3', () =>
      burst(`${FOLLOW_UPS} x ${NUMBERS} due at once, PostgreSQL, 3 processes`, graph, 3, false),
    );
  }
  await run('pglite', () =>
    burst(`${FOLLOW_UPS} x ${NUMBERS} due at once, PGlite, 1 process`, graph, 1, true),
  );
  await graph.close();

  const rows = report(results);
  process.stdout.write(`\n${rows}\n`);
  writeSection(
    'delivery',
    `## Delivery\n\n\`npm run bench -- --only=delivery${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}.\n` +
      `The fake Graph API runs in the benchmark's own process on the same machine; DELIVERY_CONCURRENCY=${CONCURRENCY}, ` +
      `SCHEDULER_TICK_MS=1000, rate limit lifted. Lag is the fake's receive time minus the due time.\n\n${rows}\n\n${LIMITS}`,
  );
}
