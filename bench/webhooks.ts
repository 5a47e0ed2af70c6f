/*
 * Webhooks benchmark (not a test): `npm run bench -- --only=webhooks [--quick]`. Writes its section
 * of docs/benchmarks.md.
 *
 * Meta's `messages` notifications (the documented shape of test/support/meta-payloads.ts, five
 * messages each), signed with the app secret as the real route requires, POSTed to one agentline
 * process; WhatsApp channels of two organizations; AGENT_EVENTS_URL is a loopback server in this
 * process that answers 200 (one URL per deployment, so both organizations' agents share it).
 * - burst: a flood at 32 concurrent keep-alive connections on PostgreSQL, first against the bare
 *   receiver (bench/bare-webhooks.ts: signature, one INSERT of the messages and their events, in
 *   the request) in a fresh database, then agentline in another: notifications accepted per second
 *   and messages processed per second (first 200 to the last `message.received` row inserted);
 * - sustained: 500 notifications/s at a fixed rate (open loop) for 60 s (quick: 15 s) to one
 *   organization, on a fresh database: the inbox's backlog over time, the time from each
 *   webhook's 200 to its messages' agent events being inserted, and meanwhile the other
 *   organization's `GET /v1/channels/whatsapp` at 20 requests/s;
 * - PGlite: a burst drained on the embedded database, with the longest event-loop stall
 *   (bench/loop-probe.ts preloaded into the process).
 *
 * - backlog: the same notifications stored at once (as the route stores them) and drained by a
 *   running process: the inbox's own rate, without the route's limit.
 *
 * BENCH_ONLY=burst,backlog,sustained,pglite runs some scenarios; BENCH_CPU_PROF=<dir> profiles agentline.
 */
import { ChildProcess, fork, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { Agent, createServer, request, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { Client } from 'pg';
import { uuidv7 } from '../src/common/ids';
import { loadConfig } from '../src/config/app-config';
import { dataSourceOptions, openDataSource } from '../src/database/data-source';
import { waText } from '../test/support/meta-payloads';
import { freePort } from '../test/support/free-port';
import { benchDatabase, machine, percentile, root, table, writeSection } from './report';
import type { BenchOptions } from './run';

const JWT_SECRET = randomBytes(32).toString('hex');
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const APP_SECRET = randomBytes(16).toString('hex');
const AGENT_EVENTS_SECRET = randomBytes(24).toString('hex');
const CONCURRENCY = 32;
const MESSAGES_PER_NOTIFICATION = 5;
const ORGS = [
  {
    org: 'org-a',
    agent: 'agent-a',
    channel: '01900000-0000-7000-8000-00000000000a',
    number: '1065403522001',
  },
  {
    org: 'org-b',
    agent: 'agent-b',
    channel: '01900000-0000-7000-8000-00000000000b',
    number: '1065403522002',
  },
];

type Sql = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

interface Signed {
  path: string;
  body: Buffer;
  signature: string;
  ids: string[];
}

/** Both organizations' channels, without their own app secret: META_APP_SECRET verifies them. */
async function seedChannels(sql: Sql): Promise<void> {
  const now = new Date().toISOString();
  for (const { org, agent, channel, number } of ORGS) {
    await sql(
      `INSERT INTO whatsapp_channels (id, organization_id, agent_id, number_id, access_token_encrypted, status,
         verification_token, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'unused', 'active', $5, 'bench', $6, $6)`,
      [channel, org, agent, number, randomBytes(16).toString('hex'), now],
    );
  }
}

interface WaShape {
  entry: {
    changes: {
      value: {
        metadata: { phone_number_id: string };
        contacts: { profile: { name: string }; wa_id: string }[];
        messages: Record<string, unknown>[];
      };
    }[];
  }[];
}

const run = randomBytes(3).toString('hex');

/** Meta's documented text message notification, with five messages from five clients. */
function notification(orgIndex: number, seq: number): Signed {
  const { number, channel } = ORGS[orgIndex];
  const copy = structuredClone(waText) as unknown as WaShape;
  const value = copy.entry[0].changes[0].value;
  const [contact] = value.contacts;
  const [message] = value.messages;
  value.metadata.phone_number_id = number;
  value.contacts = [];
  value.messages = [];
  const timestamp = String(Math.floor(Date.now() / 1000));
  const ids: string[] = [];
  for (let i = 0; i < MESSAGES_PER_NOTIFICATION; i++) {
    const from = `3460${String((seq * MESSAGES_PER_NOTIFICATION + i) % 5_000).padStart(7, '0')}`;
    const id = `wamid.bench${run}.${orgIndex}.${seq}.${i}`;
    ids.push(id);
    value.contacts.push({ ...contact, wa_id: from });
    value.messages.push({ ...message, from, id, timestamp, text: { body: `Order ${seq}, ${i}?` } });
  }
  const body = Buffer.from(JSON.stringify(copy));
  return {
    path: `/v1/webhooks/whatsapp/${channel}`,
    body,
    signature: `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`,
    ids,
  };
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

function post(port: number, item: Signed): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: item.path,
        method: 'POST',
        agent: keepAlive,
        headers: {
          'content-type': 'application/json',
          'content-length': item.body.length,
          'x-hub-signature-256': item.signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', fail);
    req.end(item.body);
  });
}

/** The agent's endpoint: answers 200 to every event, and counts the `message.received` ones. */
async function agentEndpoint(): Promise<{ server: Server; url: string; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (Buffer.concat(chunks).includes('"message.received"')) received++;
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/events`, received: () => received };
}

interface Flood {
  accepted: number;
  refused: number;
  firstOk: number;
  lastOk: number;
  started: number;
}

/** Every notification, CONCURRENCY at a time (closed loop: as fast as the server answers). */
async function flood(port: number, items: Signed[]): Promise<Flood> {
  const result: Flood = { accepted: 0, refused: 0, firstOk: 0, lastOk: 0, started: Date.now() };
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const status = await post(port, items[next++]);
      if (status !== 200) {
        result.refused++;
        continue;
      }
      const now = Date.now();
      result.accepted++;
      result.firstOk ||= now;
      result.lastOk = now;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return result;
}

interface Service {
  child: ChildProcess;
  port: number;
}

const nodeFlags = (): string[] =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

async function waitUp(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 900; i++) {
    if (child.exitCode !== null)
      throw new Error(`a benchmark process exited with ${child.exitCode}`);
    const up = await new Promise<boolean>((done) => {
      const req = request({ host: '127.0.0.1', port, path: '/health' }, (res) => {
        res.resume();
        done(true);
      });
      req.on('error', () => done(false));
      req.end();
    });
    if (up) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('a benchmark process did not answer within 90 s');
}

async function startAgentline(
  env: Record<string, string>,
  preload: string[] = [],
): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags(), ...preload, 'dist/src/main.js'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      JWT_SECRET,
      ENCRYPTION_KEY,
      META_APP_SECRET: APP_SECRET,
      AGENT_EVENTS_SECRET,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitUp(port, child);
  return { child, port };
}

async function startBare(url: string): Promise<Service> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', 'bench/bare-webhooks.ts'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: url,
        META_APP_SECRET: APP_SECRET,
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((done, fail) => {
    child.stdout?.once('data', () => done());
    child.once('exit', (code) => fail(new Error(`the bare receiver exited with ${code}`)));
  });
  return { child, port };
}

function stop({ child }: Service): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** A fresh PostgreSQL database with agentline's schema and both channels. */
async function postgres(): Promise<{ url: string; sql: Sql; drop: () => Promise<void> }> {
  const db = await benchDatabase('agentline_bench_wh');
  const config = loadConfig({ JWT_SECRET, ENCRYPTION_KEY, DATABASE_URL: db.url });
  await (await openDataSource(dataSourceOptions(config))).destroy();
  const client = new Client({ connectionString: db.url });
  await client.connect();
  const sql: Sql = async (text, params) => (await client.query(text, params)).rows;
  await seedChannels(sql);
  return {
    url: db.url,
    sql,
    drop: async () => {
      await client.end();
      await db.drop();
    },
  };
}

type Postgres = Awaited<ReturnType<typeof postgres>>;
type AgentEndpoint = Awaited<ReturnType<typeof agentEndpoint>>;

/** A fresh database and agent endpoint, a server started on them: all stopped after `work`. */
async function onFreshPostgres<T>(
  start: (db: Postgres, endpoint: AgentEndpoint) => Promise<Service>,
  work: (db: Postgres, service: Service) => Promise<T>,
): Promise<T> {
  const db = await postgres();
  const endpoint = await agentEndpoint();
  try {
    const service = await start(db, endpoint);
    try {
      return await work(db, service);
    } finally {
      await stop(service);
    }
  } finally {
    endpoint.server.close();
    await db.drop();
  }
}

/** Waits until `expected` `message.received` events are in agent_events; the last one's time. */
async function eventsInserted(sql: Sql, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql(
      `SELECT count(*)::int AS n, (extract(epoch FROM max(created_at)) * 1000)::float8 AS last
         FROM agent_events WHERE type = 'message.received'`,
    );
    if (Number(row.n) >= expected) return Number(row.last);
    if (Date.now() > deadline) throw new Error(`only ${String(row.n)} of ${expected} events`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

interface BurstResult {
  server: string;
  notifications: number;
  acceptedPerSecond: number;
  messagesPerSecond: number;
  seconds: number;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

async function burst(bare: boolean, count: number): Promise<BurstResult> {
  return onFreshPostgres(
    (db, endpoint) =>
      bare
        ? startBare(db.url)
        : startAgentline({ DATABASE_URL: db.url, AGENT_EVENTS_URL: endpoint.url }),
    async (db, service) => {
      const items = Array.from({ length: count }, (_, i) => notification(i % 2, i));
      await db.sql('ANALYZE');
      const result = await flood(service.port, items);
      if (result.refused > 0) process.stderr.write(`burst: ${result.refused} refused\n`);
      const messages = result.accepted * MESSAGES_PER_NOTIFICATION;
      const last = await eventsInserted(db.sql, messages, 900_000);
      const acceptSeconds = (result.lastOk - result.started) / 1000;
      const seconds = (Math.max(last, result.lastOk) - result.started) / 1000;
      return {
        server: bare ? 'bare receiver (in the request)' : 'agentline, 1 process',
        notifications: result.accepted,
        acceptedPerSecond: Math.round(result.accepted / acceptSeconds),
        messagesPerSecond: Math.round(messages / seconds),
        seconds: round1(seconds),
      };
    },
  );
}

interface BacklogResult {
  notifications: number;
  messagesPerSecond: number;
  seconds: number;
}

/**
 * The inbox's own rate, the route out of the way: `count` notifications stored at once as the
 * route stores them (one transaction), drained by a running process from its next sweep. Timed
 * from the first `message.received` row to the last (the first batch's own time left out).
 */
async function backlog(count: number): Promise<BacklogResult> {
  return onFreshPostgres(
    (db, endpoint) => startAgentline({ DATABASE_URL: db.url, AGENT_EVENTS_URL: endpoint.url }),
    async (db) => {
      const items = Array.from({ length: count }, (_, i) => notification(i % 2, i));
      await db.sql(
        `INSERT INTO webhook_inbox (id, organization_id, channel_kind, channel_id, body, body_sha256,
                                  status, attempts, next_attempt_at, received_at)
       SELECT n.id, c.organization_id, 'whatsapp', c.id, n.body,
              encode(sha256(n.body), 'hex'), 'pending', 0, now(), now()
         FROM unnest($1::uuid[], $2::bytea[], $3::uuid[]) AS n(channel_id, body, id)
         JOIN whatsapp_channels c ON c.id = n.channel_id`,
        [
          items.map((_, i) => ORGS[i % 2].channel),
          items.map((item) => item.body),
          items.map(() => uuidv7()),
        ],
      );
      await db.sql('ANALYZE');
      const messages = count * MESSAGES_PER_NOTIFICATION;
      const last = await eventsInserted(db.sql, messages, 900_000);
      const [row] = await db.sql(
        `SELECT (extract(epoch FROM min(created_at)) * 1000)::float8 AS first
         FROM agent_events WHERE type = 'message.received'`,
      );
      const seconds = (last - Number(row.first)) / 1000;
      return {
        notifications: count,
        messagesPerSecond: Math.round(messages / seconds),
        seconds: round1(seconds),
      };
    },
  );
}

interface Latencies {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

const summary = (values: number[]): Latencies => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: Math.round(percentile(sorted, 50)),
    p99: Math.round(percentile(sorted, 99)),
    max: Math.round(sorted[sorted.length - 1] ?? 0),
    n: sorted.length,
  };
};

/** GETs the other organization's channel list every 50 ms until stopped; each one's time. */
function otherTenant(port: number): { stop: () => Promise<Latencies> } {
  const token = jwt.sign({ organization_id: ORGS[1].org }, JWT_SECRET, {
    algorithm: 'HS256',
    subject: 'bench',
    expiresIn: '2h',
  });
  const probe = fork(join(root, 'bench/tenant-probe.ts'), [String(port), token], {
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    cwd: root,
  });
  return {
    stop: () =>
      new Promise((done, fail) => {
        probe.once('message', (answer: { times?: number[]; error?: string }) =>
          answer.times ? done(summary(answer.times)) : fail(new Error(answer.error)),
        );
        probe.once('exit', (code) => fail(new Error(`the tenant probe exited with ${code}`)));
        probe.send('stop', (error) => error && fail(error));
      }),
  };
}

/** Preloads bench/loop-probe.ts into agentline, writing to `file`. */
const LOOP_PROBE = ['-r', 'ts-node/register/transpile-only', '-r', './bench/loop-probe.ts'];

interface Stalls {
  /** The longest time the event loop was held, ms. */
  maxStall: number;
  /** CPU the process used during its longest stall. */
  maxStallCpu: number;
  stallsOver50: number;
}

/** What the loop probe wrote between two moments (epoch ms). */
function stallsBetween(file: string, from: number, to: number): Stalls {
  const stalls = existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(',').map(Number))
        .filter(([at]) => at >= from && at <= to)
    : [];
  const longest = stalls.sort((a, b) => b[1] - a[1])[0];
  return {
    maxStall: longest?.[1] ?? 0,
    maxStallCpu: longest?.[2] ?? 0,
    stallsOver50: stalls.filter(([, ms]) => ms > 50).length,
  };
}

/**
 * Issues `send(item)` for each item at `rate` per second on a timer (open loop: a slow answer
 * does not slow the next request). Resolves once all are issued, to their promises.
 */
function atRate<T>(
  items: T[],
  rate: number,
  send: (item: T) => Promise<unknown>,
): Promise<Promise<unknown>[]> {
  const started = Date.now();
  const sent: Promise<unknown>[] = [];
  return new Promise((done) => {
    const tick = setInterval(() => {
      const due = Math.min(items.length, Math.floor(((Date.now() - started) * rate) / 1000));
      while (sent.length < due) sent.push(send(items[sent.length]));
      if (sent.length >= items.length) {
        clearInterval(tick);
        done(sent);
      }
    }, 5);
  });
}

interface SustainedResult {
  rate: number;
  seconds: number;
  sent: number;
  okP99: number;
  backlog: { at: number; pending: number }[];
  toEvent: Latencies;
  apiIdle: Latencies;
  apiLoaded: Latencies;
  /** The event loop while the webhooks came in. */
  stalls: Stalls;
}

async function sustained(rate: number, seconds: number): Promise<SustainedResult> {
  const probeDir = mkdtempSync(join(tmpdir(), 'agentline-bench-probe-'));
  const probe = join(probeDir, 'loop-probe.csv');
  try {
    return await onFreshPostgres(
      (db, endpoint) =>
        startAgentline(
          { DATABASE_URL: db.url, AGENT_EVENTS_URL: endpoint.url, BENCH_LOOP_PROBE_FILE: probe },
          LOOP_PROBE,
        ),
      async (db, service) => {
        const idle = otherTenant(service.port);
        await new Promise((done) => setTimeout(done, 5_000));
        const apiIdle = await idle.stop();
        const total = rate * seconds;
        const items = Array.from({ length: total }, (_, i) => notification(0, i));
        // Warm-up: 2 s at the rate, processed before the measure starts. A process's first second
        // under load (code not yet compiled, pool connections opening) held the other tenant's
        // GETs for up to 0.7 s; a running deployment is past it.
        const warmUp = Array.from({ length: rate * 2 }, (_, i) => notification(0, total + i));
        await Promise.all(
          await atRate(warmUp, rate, async (item) => {
            const status = await post(service.port, item);
            if (status !== 200) throw new Error(`a warm-up webhook answered ${status}`);
          }),
        );
        await eventsInserted(db.sql, warmUp.length * MESSAGES_PER_NOTIFICATION, 120_000);
        await db.sql('ANALYZE');
        const okAt = new Map<string, number>();
        const okTimes: number[] = [];
        const backlog: { at: number; pending: number }[] = [];
        const loaded = otherTenant(service.port);
        const started = Date.now();
        const sampler = setInterval(() => {
          const at = Math.round((Date.now() - started) / 1000);
          void db
            .sql(`SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'`)
            .then(([row]) => backlog.push({ at, pending: Number(row.n) }));
        }, 1_000);
        const requests = atRate(items, rate, async (item) => {
          const sentAt = performance.now();
          const status = await post(service.port, item);
          if (status !== 200) throw new Error(`a webhook answered ${status}`);
          const now = Date.now();
          okTimes.push(performance.now() - sentAt);
          for (const id of item.ids) okAt.set(id, now);
        });
        await Promise.all(await requests);
        const apiLoaded = await loaded.stop();
        const stalls = stallsBetween(probe, started, Date.now());
        await eventsInserted(db.sql, (total + warmUp.length) * MESSAGES_PER_NOTIFICATION, 300_000);
        clearInterval(sampler);
        const rows = await db.sql(
          `SELECT payload->'data'->>'message_id' AS id,
              (extract(epoch FROM created_at) * 1000)::float8 AS at
         FROM agent_events WHERE type = 'message.received'`,
        );
        const toEvent = rows.map((row) => Number(row.at) - (okAt.get(String(row.id)) ?? NaN));
        return {
          rate,
          seconds,
          sent: total,
          okP99: Math.round(summary(okTimes).p99),
          backlog: backlog.sort((a, b) => a.at - b.at),
          toEvent: summary(toEvent.filter((ms) => Number.isFinite(ms))),
          apiIdle,
          apiLoaded,
          stalls,
        };
      },
    );
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
}

interface PgliteResult extends Stalls {
  notifications: number;
  seconds: number;
  messagesPerSecond: number;
}

async function pglite(count: number): Promise<PgliteResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentline-bench-wh-'));
  const probe = join(dataDir, 'loop-probe.csv');
  const endpoint = await agentEndpoint();
  let service: Service | undefined;
  try {
    const config = loadConfig({ JWT_SECRET, ENCRYPTION_KEY, DATA_DIR: join(dataDir, 'db') });
    const dataSource = await openDataSource(dataSourceOptions(config));
    await seedChannels((text, params) => dataSource.query(text, params));
    await dataSource.destroy();
    service = await startAgentline(
      {
        DATA_DIR: join(dataDir, 'db'),
        AGENT_EVENTS_URL: endpoint.url,
        BENCH_LOOP_PROBE_FILE: probe,
      },
      LOOP_PROBE,
    );
    const items = Array.from({ length: count }, (_, i) => notification(i % 2, i));
    const started = Date.now();
    const result = await flood(service.port, items);
    const expected = result.accepted * MESSAGES_PER_NOTIFICATION;
    const deadline = Date.now() + 900_000;
    while (endpoint.received() < expected && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 100));
    }
    const ended = Date.now();
    const seconds = (ended - started) / 1000;
    return {
      notifications: result.accepted,
      seconds: round1(seconds),
      messagesPerSecond: Math.round(expected / seconds),
      ...stallsBetween(probe, started, ended),
    };
  } finally {
    if (service) await stop(service);
    endpoint.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const LIMITS = `### Where the time goes, what limits it

- Before issue 23 the inbox applied one notification per transaction: BEGIN, the claim, the
  channel, per message an \`INSERT\` into \`channel_messages\` and one into \`agent_events\`, the
  row's \`UPDATE\`, COMMIT; about 15 round trips for a notification of five messages, each a
  commit-sized wait in series. A CPU profile of the burst (\`BENCH_CPU_PROF=<dir>\`, 2026-11-26,
  quick) put 19% of the process's samples in \`writev\` under pg's query submission (the socket
  write that wakes PostgreSQL, per statement), with TypeORM's and pg's per-query work (about 7%),
  \`uuidv7\`'s random bytes and \`toIso\` after it; the rest was Nest's request path for the
  \`POST\`s and the agent-event sender. The first quick run measured 55 messages/s processed
  against the bare receiver's 564 on the same (heavily loaded) machine.
- Now up to 50 notifications are claimed and applied in one transaction (\`webhook-inbox.ts\`):
  their channels and routes read once, all their messages in one \`INSERT ... SELECT FROM unnest\`,
  all their \`message.received\` events in another, their rows settled in one \`UPDATE\`. About
  seven statements per 50 notifications instead of 750. A batch that fails is rolled back and its
  notifications applied one by one, so nothing of the old guarantees moved (exactly once,
  \`SKIP LOCKED\` across replicas, a crash rolls a batch back to be taken again).
- The agent-event sender recorded each delivery in its own \`UPDATE\` (a commit per event, five
  per notification): it now records a round's deliveries in one.
- On PostgreSQL the drain keeps one pool connection while it runs. Without that, under a flood
  each batch queued for a connection behind the webhook requests, and the backlog grew (quick
  sustained run, 2026-11-26: to 740 pending, 200 → event p99 20 s); with it the backlog stayed
  flat (under 80 pending) and p99 fell to 2.9 s on the same loaded machine.
- The webhook route read its channel on every request: each process now keeps a channel it
  found for 1 s (docs/webhooks.md), which took the burst's accepted rate from 704 to 934
  notifications/s in quick runs. What is left per \`POST\` is Nest's pipeline (access log,
  metrics, body parsing), the HMAC and the inbox's \`INSERT\`; the bare receiver pays one round trip
  and no framework. The drain keeps up with what is accepted (the backlog run drains 10,000
  messages/s alone), so "messages/s processed" in the burst is four to five times the accepted
  rate (five messages a notification, counted to the last event).
- Before this issue's second round the sustained run timed the other organization's \`GET\`s in
  the benchmark's own process, where they waited behind the 500 \`POST\`s a second it sends and
  the 2,500 agent events a second it receives; they now run in a process of their own
  (bench/tenant-probe.ts). The run also starts after 2 s at the rate: a cold process's first
  second under load (code not yet compiled, pool connections opening) held those \`GET\`s for up
  to 0.7 s, once, in every quick run.
- The agent-event sender POSTs every message to the agent (16 at a time) in the same process,
  which competes for the same core as the request path and the drain. It signs with node:crypto's
  HMAC: the \`standardwebhooks\` package's JavaScript SHA-256 was 2% of the process in the
  sustained run.
- PGlite runs each statement on the service's own thread, so a transaction holds the event loop
  from its first statement to its commit: batches are 10 notifications there, with a turn of the
  event loop between batches. On a machine whose load is far above its cores the probe also counts
  the time the process waited for a core (its CPU column then stays well below the stall).
`;

export async function runWebhooksBench({ quick }: BenchOptions): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',');
  const wanted = (key: string) => !only || only.includes(key);
  const burstSize = Number(process.env.BENCH_NOTIFICATIONS ?? (quick ? 2_000 : 20_000));
  const sections: string[] = [];
  if (wanted('burst')) {
    const bare = await burst(true, burstSize);
    process.stdout.write(`${JSON.stringify(bare)}\n`);
    const agentline = await burst(false, burstSize);
    process.stdout.write(`${JSON.stringify(agentline)}\n`);
    const ratio = Math.round((agentline.messagesPerSecond / bare.messagesPerSecond) * 100) / 100;
    sections.push(
      `### Burst, PostgreSQL\n\n${burstSize.toLocaleString('en')} notifications of ${MESSAGES_PER_NOTIFICATION} messages (both organizations' channels in turn), ` +
        `${CONCURRENCY} concurrent keep-alive connections. "messages/s" runs from the first request to the last ` +
        `\`message.received\` row inserted in \`agent_events\` (its \`created_at\`); the bare receiver inserts them in the request. ` +
        `Goal: 3,000 messages/s processed.\n\n` +
        table(
          ['server', 'notifications', 'accepted/s', 'messages/s processed', 'time (s)', 'of bare'],
          [
            [
              bare.server,
              bare.notifications,
              bare.acceptedPerSecond,
              bare.messagesPerSecond,
              bare.seconds,
              1,
            ],
            [
              agentline.server,
              agentline.notifications,
              agentline.acceptedPerSecond,
              agentline.messagesPerSecond,
              agentline.seconds,
              ratio,
            ],
          ],
        ),
    );
  }
  if (wanted('backlog')) {
    const result = await backlog(burstSize);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    sections.push(
      `### Backlog, PostgreSQL: the inbox alone\n\n` +
        `${burstSize.toLocaleString('en')} notifications of ${MESSAGES_PER_NOTIFICATION} messages stored at once, in one transaction, as the route stores them; ` +
        `one running process drains them. Timed from the first \`message.received\` row to the last. This is the inbox's own rate; ` +
        `the burst above is bounded by what the route accepts. Goal: 3,000 messages/s processed with one process.\n\n` +
        table(
          ['notifications', 'messages/s processed', 'time (s)'],
          [[result.notifications, result.messagesPerSecond, result.seconds]],
        ),
    );
  }
  if (wanted('sustained')) {
    const result = await sustained(500, quick ? 15 : 60);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    const every = result.backlog.filter(
      (sample, i) => i % 5 === 0 || i === result.backlog.length - 1,
    );
    sections.push(
      `### Sustained, PostgreSQL\n\n${result.rate} notifications/s (${result.rate * MESSAGES_PER_NOTIFICATION} messages/s) for ${result.seconds} s ` +
        `to one organization, issued on a timer (open loop). "200 → event" is each message's \`agent_events.created_at\` ` +
        `(agentline's clock when it inserts the row, a few ms before its commit) minus the time this process read the webhook's 200 ` +
        `(same machine, same clock). The other organization's \`GET /v1/channels/whatsapp\` runs at 20 requests/s, ` +
        `5 s before the load (idle) and during it. Goals: no backlog growth, 200 → event p99 < 1 s, other tenant p99 < 50 ms.\n\n` +
        table(
          ['measure', 'p50 (ms)', 'p99 (ms)', 'max (ms)', 'samples'],
          [
            [
              'webhook 200 → agent event inserted',
              result.toEvent.p50,
              result.toEvent.p99,
              result.toEvent.max,
              result.toEvent.n,
            ],
            ['webhook request → 200', '–', result.okP99, '–', result.sent],
            [
              'other tenant GET, idle',
              result.apiIdle.p50,
              result.apiIdle.p99,
              result.apiIdle.max,
              result.apiIdle.n,
            ],
            [
              'other tenant GET, under the load',
              result.apiLoaded.p50,
              result.apiLoaded.p99,
              result.apiLoaded.max,
              result.apiLoaded.n,
            ],
          ],
        ) +
        `\n\nInbox backlog (\`webhook_inbox\` rows pending), by second since the start: ` +
        every.map((sample) => `${sample.at} s: ${sample.pending}`).join(', ') +
        `. The event loop meanwhile (bench/loop-probe.ts): longest stall ${result.stalls.maxStall} ms ` +
        `(${result.stalls.maxStallCpu} ms of CPU in it), ${result.stalls.stallsOver50} stalls over 50 ms.`,
    );
  }
  if (wanted('pglite')) {
    const count = quick ? 500 : 2_000;
    const result = await pglite(count);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    sections.push(
      `### Burst, PGlite\n\n${result.notifications.toLocaleString('en')} notifications of ${MESSAGES_PER_NOTIFICATION} messages on the embedded database, ` +
        `${CONCURRENCY} concurrent connections, measured until the agent endpoint received the last \`message.received\`. ` +
        `The stall is the longest time a 10 ms timer in the process (bench/loop-probe.ts) ran late in that window. Goal: ≤ 200 ms.\n\n` +
        table(
          [
            'notifications',
            'time (s)',
            'messages/s',
            'longest stall (ms)',
            'CPU used in it (ms)',
            'stalls over 50 ms',
          ],
          [
            [
              result.notifications,
              result.seconds,
              result.messagesPerSecond,
              result.maxStall,
              result.maxStallCpu,
              result.stallsOver50,
            ],
          ],
        ),
    );
  }
  keepAlive.destroy();
  writeSection(
    'webhooks',
    `## Webhooks\n\n\`npm run bench -- --only=webhooks${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}.\n` +
      `Meta's documented \`messages\` notification (test/support/meta-payloads.ts) with five messages, signed with ` +
      `META_APP_SECRET; one agentline process; AGENT_EVENTS_URL is a loopback server in the benchmark's process answering 200.\n\n` +
      `${sections.join('\n\n')}\n\n${LIMITS}`,
  );
}
