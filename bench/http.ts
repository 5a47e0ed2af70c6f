/*
 * HTTP benchmark (not a test): `npm run bench -- --only=http [--quick]`. Writes its section of
 * docs/benchmarks.md.
 *
 * agentline (`node dist/src/main.js` on a fresh PostgreSQL database, logging every request at
 * info to a file, as in production) and a bare `node:http` + `pg` server doing the same work
 * (bench/bare-http.ts) are loaded one after the other with the same wrk command, in rounds that
 * alternate the two, so that both see the same machine. The goals of issue 10 are ratios to the
 * bare server: only ratios compare on a shared machine.
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
  /** The servers that answer it besides agentline: the bare server, and the minimal Nest app. */
  baseline: boolean;
  floor?: boolean;
  /** wrk counts non-2xx/3xx answers; a 401 route expects all of them to be. */
  expectErrors?: boolean;
  /** Goals from issue 10, as ratios to the baseline. */
  goal?: string;
}

const ROUTES: Route[] = [
  {
    name: '`POST /v1/channels/whatsapp`',
    method: 'POST',
    path: '/v1/channels/whatsapp',
    authorized: true,
    baseline: true,
    goal: '≥ 0.6 of req/s, p99 ≤ 2× the baseline',
  },
  {
    name: '`GET /v1/tools/specs` (default page, same bytes)',
    method: 'GET',
    path: '/v1/tools/specs',
    authorized: true,
    baseline: true,
    goal: '≥ 0.5 of req/s',
  },
  {
    name: '`GET /v1/tools/specs` without a token (`401`)',
    method: 'GET',
    path: '/v1/tools/specs',
    authorized: false,
    baseline: true,
    expectErrors: true,
  },
  {
    name: '`GET /health` (`{"status":"ok"}`; the minimal Nest app answers it too)',
    method: 'GET',
    path: '/health',
    authorized: false,
    baseline: true,
    floor: true,
  },
];

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

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const round1 = (value: number) => Math.round(value * 10) / 10;

export async function runHttpBench({ quick }: BenchOptions): Promise<void> {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary is an error.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error('the HTTP benchmark needs wrk: apt install wrk (or brew install wrk)');
    }
  }
  const seconds = quick ? 5 : 10;
  const rounds = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'agentline-bench-http-'));
  const db = await benchDatabase('agentline_bench_http');
  const children: ChildProcess[] = [];
  const sql = new Client({ connectionString: db.url });
  try {
    const config = loadConfig({ JWT_SECRET, ENCRYPTION_KEY, DATABASE_URL: db.url });
    await (await openDataSource(dataSourceOptions(config))).destroy();
    const token = jwt.sign({ organization_id: ORGANIZATION }, JWT_SECRET, {
      algorithm: 'HS256',
      subject: 'bench',
      expiresIn: '2h',
    });

    const agentlinePort = await freePort();
    const logFile = join(dir, 'agentline.log');
    const log = openSync(logFile, 'a');
    const agentline = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(agentlinePort),
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
    });
    children.push(agentline);
    closeSync(log);
    const agentlineUrl = `http://127.0.0.1:${agentlinePort}`;
    await waitUntilUp(`${agentlineUrl}/health`, agentline);

    // The bare server answers the specs route with the bytes agentline gave for the same page.
    const specs = await fetch(`${agentlineUrl}/v1/tools/specs`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (specs.status !== 200) throw new Error(`GET /v1/tools/specs answered ${specs.status}`);
    const specsBytes = Buffer.from(await specs.arrayBuffer());
    const specsFile = join(dir, 'specs.json');
    writeFileSync(specsFile, specsBytes);

    const bareUrl = await startTsServer(
      'bench/bare-http.ts',
      { DATABASE_URL: db.url, JWT_SECRET, ENCRYPTION_KEY, SPECS_FILE: specsFile },
      children,
    );
    const nestUrl = await startTsServer('bench/nest-floor.ts', {}, children);

    let run = 0;
    const rows: (string | number)[][] = [];
    await sql.connect();
    for (const route of ROUTES) {
      const targets = [
        ...(route.baseline ? [['bare', bareUrl]] : []),
        ...(route.floor ? [['nest', nestUrl]] : []),
        ['agentline', agentlineUrl],
      ];
      const loads: Record<string, Load[]> = { bare: [], nest: [], agentline: [] };
      // A short warm-up each, so that both are measured with their code optimized.
      for (const [, url] of targets) wrk(url, wrkScript(dir, route, token, ++run), 2);
      for (let round = 0; round < rounds; round++) {
        for (const [name, url] of round % 2 === 0 ? targets : [...targets].reverse()) {
          const load = wrk(url, wrkScript(dir, route, token, ++run), seconds);
          process.stdout.write(`${route.method} ${route.path} ${name}: ${JSON.stringify(load)}\n`);
          loads[name].push(load);
        }
        if (route.method === 'POST') await sql.query('TRUNCATE whatsapp_channels CASCADE');
      }
      const summary = (name: string) => {
        const list = loads[name];
        if (list.length === 0) return undefined;
        const unexpected = list.reduce((sum, load) => sum + load.unexpected, 0);
        return {
          rps: Math.round(mean(list.map((load) => load.requestsPerSecond))),
          rounds: list.map((load) => load.requestsPerSecond).join(', '),
          p99: round1(mean(list.map((load) => load.p99Ms))),
          p99s: list.map((load) => load.p99Ms).join(', '),
          unexpected: route.expectErrors ? 0 : unexpected,
        };
      };
      const ours = summary('agentline');
      const base = summary('bare');
      const nest = summary('nest');
      if (!ours) continue;
      if (ours.unexpected > 0 || (base?.unexpected ?? 0) > 0) {
        throw new Error(
          `${route.name}: unexpected statuses (agentline ${ours.unexpected}, bare ${base?.unexpected})`,
        );
      }
      rows.push([
        route.name,
        `${ours.rps} (${ours.rounds})`,
        `${ours.p99s}`,
        base ? `${base.rps} (${base.rounds})` : '–',
        base ? `${base.p99s}` : '–',
        base ? (ours.rps / base.rps).toFixed(2) : '–',
        base ? (ours.p99 / base.p99).toFixed(1) : '–',
        nest && base ? `${nest.rps} (${(nest.rps / base.rps).toFixed(2)})` : '–',
        route.goal ?? '–',
      ]);
    }

    const result = table(
      [
        'route',
        'agentline req/s (rounds)',
        'agentline p99 ms',
        'bare req/s (rounds)',
        'bare p99 ms',
        'req/s ratio',
        'p99 ratio',
        'minimal Nest app req/s (ratio)',
        'goal',
      ],
      rows,
    );
    process.stdout.write(`\n${result}\n`);
    writeSection(
      'http',
      `## HTTP API against a bare stack\n\n` +
        `\`npm run bench -- --only=http${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}; ` +
        `wrk -t2 -c${CONNECTIONS}, ${seconds} s per round, ${rounds} round${rounds > 1 ? 's' : ''} alternating the two servers after a 2 s warm-up each; PostgreSQL on the same machine.\n\n` +
        `agentline runs \`node dist/src/main.js\` with LOG_LEVEL=info (an access line per request, to a file). ` +
        `The bare server (\`bench/bare-http.ts\`) is \`node:http\` + \`pg\` doing the same work: the HS256 check, the body's fields, ` +
        `AES-256-GCM of the token, one INSERT into the same table; and, for the catalog, the bytes agentline answered for the same page. ` +
        `It has no logging, no problem details, no rate limit and no OpenAPI. ` +
        `The minimal Nest app (\`bench/nest-floor.ts\`) is Nest on Express with one controller and nothing else: ` +
        `the framework's own floor on this machine.\n\n${result}\n`,
    );
  } finally {
    await sql.end().catch(() => undefined);
    await Promise.all(children.map(stop));
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}
