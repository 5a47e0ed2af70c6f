/*
 * Start-up and idle memory (not a test): `npm run bench -- --only=startup [--quick]`. Writes its
 * section of docs/benchmarks.md.
 *
 * - `npm start` on an unchanged checkout (the build has nothing to do), embedded database:
 *   time from the command to the first answer of GET /health.
 * - The first start on a new data directory (the database is created and migrated).
 * - Resident memory after start, idle: embedded and PostgreSQL.
 * - Baseline, in the same run: a bare `node:http` server started with `node -e`.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/free-port';
import { benchDatabase, machine, root, table, writeSection } from './report';
import type { BenchOptions } from './run';

const IDLE_MS = 5_000;

interface Started {
  firstAnswerMs: number;
  idleRssMb: number;
}

/** The pid of the node process serving (npm start runs it under a shell). */
function servingPid(child: ChildProcess): number {
  const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
  if (!children) return child.pid as number;
  const [first] = children.split(/\s+/).map(Number);
  const nested = (() => {
    try {
      return readFileSync(`/proc/${first}/task/${first}/children`, 'utf8').trim();
    } catch {
      return '';
    }
  })();
  return nested ? Number(nested.split(/\s+/)[0]) : first;
}

const rssMb = (pid: number) =>
  Math.round(
    Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
  );

/** Starts `command`, times its first answer on /health, then its RSS after IDLE_MS, and stops it. */
async function start(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Started> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let firstAnswerMs = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode})`);
    try {
      await fetch(`http://127.0.0.1:${port}/health`);
      firstAnswerMs = Math.round(performance.now() - started);
      break;
    } catch {
      await new Promise((done) => setTimeout(done, 20));
    }
  }
  await new Promise((done) => setTimeout(done, IDLE_MS));
  const pid = servingPid(child);
  const idleRssMb = rssMb(pid);
  await new Promise<void>((done) => {
    child.once('exit', () => done());
    process.kill(pid, 'SIGTERM');
    if (pid !== child.pid) setTimeout(() => child.kill('SIGTERM'), 2_000);
  });
  return { firstAnswerMs, idleRssMb };
}

async function withPostgres<T>(work: (url: string) => Promise<T>): Promise<T> {
  const db = await benchDatabase('agentline_bench_start');
  try {
    return await work(db.url);
  } finally {
    await db.drop();
  }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function runStartupBench({ quick }: BenchOptions): Promise<void> {
  const runs = quick ? 1 : 3;
  const secrets = {
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
  };
  const bare = `require('node:http').createServer((q, s) => s.end('{"status":"ok"}')).listen(process.env.PORT)`;
  const rows: (string | number)[][] = [];
  const measure = async (name: string, goal: string, once: () => Promise<Started>) => {
    const results: Started[] = [];
    for (let i = 0; i < runs; i++) results.push(await once());
    const first = results.map((r) => r.firstAnswerMs);
    const rss = results.map((r) => r.idleRssMb);
    process.stdout.write(`${name}: ${JSON.stringify(results)}\n`);
    rows.push([
      name,
      `${median(first)} (${first.join(', ')})`,
      `${median(rss)} (${rss.join(', ')})`,
      goal,
    ]);
  };

  await measure('bare `node -e` http server', '–', () => start(process.execPath, ['-e', bare], {}));
  const dataDir = mkdtempSync(join(tmpdir(), 'agentline-bench-start-'));
  try {
    // Once to create the database, so that what follows is a start on an existing one.
    await start('npm', ['start', '--silent'], { ...secrets, DATA_DIR: dataDir });
    await measure(
      '`npm start` on an unchanged checkout, embedded database',
      'first answer < 3 s; idle RSS < 250 MB',
      () => start('npm', ['start', '--silent'], { ...secrets, DATA_DIR: dataDir }),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  await measure(
    'first start on a new data directory (`node dist/src/main.js`)',
    'says what it does',
    async () => {
      const fresh = mkdtempSync(join(tmpdir(), 'agentline-bench-fresh-'));
      try {
        return await start(process.execPath, ['dist/src/main.js'], { ...secrets, DATA_DIR: fresh });
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    },
  );
  await measure('`node dist/src/main.js` on PostgreSQL (fresh database)', 'idle RSS < 150 MB', () =>
    withPostgres((url) =>
      start(process.execPath, ['dist/src/main.js'], { ...secrets, DATABASE_URL: url }),
    ),
  );

  const result = table(
    [
      'start',
      'first answer, ms: median (runs)',
      `RSS after ${IDLE_MS / 1000} s idle, MiB: median (runs)`,
      'goal',
    ],
    rows,
  );
  process.stdout.write(`\n${result}\n`);
  writeSection(
    'startup',
    `## Start-up and idle memory\n\n\`npm run bench -- --only=startup${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}. ` +
      `Time from the command to the first answer of \`GET /health\`; resident memory (VmRSS) of the serving process ${IDLE_MS / 1000} s after that answer. ` +
      `The scheduler runs, the database is empty.\n\n${result}\n`,
  );
}
