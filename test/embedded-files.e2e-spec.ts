import { spawn } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { copyEmbeddedTemplate } from './support/template-database';
import { startApp } from './support/test-app';

const root = resolve(__dirname, '..');
const tsNode = [require.resolve('ts-node/dist/bin.js'), '--transpile-only'];

/** agentline from src/main.ts with only `env`, under umask 022 (what most systems give). */
function startUnderUmask022(env: Record<string, string>) {
  const child = spawn(
    'sh',
    ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, ...tsNode, 'src/main.ts'],
    { cwd: root, env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env } },
  );
  let output = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.on('exit', done));
  return { child, exited, output: () => output, stderr: () => stderr };
}

/** Every entry under `dir` whose mode is not 0700 (directories) or 0600 (files), as `mode path`. */
function notPrivate(dir: string): { loose: string[]; files: number } {
  const loose: string[] = [];
  let files = 0;
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode !== 0o700) loose.push(`${mode.toString(8)} ${path}`);
      for (const name of readdirSync(path)) walk(join(path, name));
    } else {
      files++;
      if (mode !== 0o600) loose.push(`${mode.toString(8)} ${path}`);
    }
  };
  walk(dir);
  return { loose, files };
}

const connects = (host: string, port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  }).finally(() => undefined);

/** An address of this machine that is not loopback, if it has one. */
const externalAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((address) => address && !address.internal && address.family === 'IPv4')?.address;

/** Embedded mode only: file permissions and the listen address of a development setup. */
describe('Embedded files and listen address (e2e)', () => {
  it('creates DATA_DIR 0700 with every file 0600 under umask 022, and listens on 127.0.0.1 with generated secrets', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'agentline-files-')), 'data');
    const service = startUnderUmask022({ DATA_DIR: dataDir });
    try {
      const deadline = Date.now() + 60_000;
      while (!/agentline listening on/.test(service.output()) && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 100));
      }
      const listening = /agentline listening on (\S+):(\d+) /.exec(service.output());
      expect(listening?.[1]).toBe('127.0.0.1');
      const port = Number(listening?.[2]);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      // Not reachable from another interface (127.0.0.2 is loopback, but not the bound address).
      expect(await connects(externalAddress() ?? '127.0.0.2', port)).toBe(false);

      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const running = notPrivate(dataDir);
      expect(running.loose).toEqual([]);
      // PGlite's cluster is in there too (about a thousand files).
      expect(running.files).toBeGreaterThan(500);
      expect(statSync(join(dataDir, 'pgdata', 'PG_VERSION')).mode & 0o777).toBe(0o600);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    // A stop says so (a crash would not).
    expect(service.output()).toContain('SIGTERM received: stopping');
    // What PGlite writes while it shuts down is private as well.
    expect(notPrivate(dataDir).loose).toEqual([]);
  });

  it('makes an existing DATA_DIR private at boot (go-rwx), leaving what symbolic links point to alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-upgrade-'));
    // An upgrade: the directory already holds a database (the run's migrated one) and older files.
    copyEmbeddedTemplate(dataDir);
    chmodSync(dataDir, 0o755);
    mkdirSync(join(dataDir, 'older'), { mode: 0o755 });
    writeFileSync(join(dataDir, 'older', 'notes.txt'), 'from an older release', { mode: 0o644 });
    chmodSync(join(dataDir, 'older', 'notes.txt'), 0o644);
    writeFileSync(join(dataDir, 'older', 'backup.sh'), '#!/bin/sh\n', { mode: 0o755 });
    chmodSync(join(dataDir, 'older', 'backup.sh'), 0o755);
    const outside = join(mkdtempSync(join(tmpdir(), 'agentline-outside-')), 'shared.txt');
    writeFileSync(outside, 'not ours');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dataDir, 'link-to-shared.txt'));

    const t = await startApp({ DATABASE_URL: undefined, DATA_DIR: dataDir });
    try {
      // The owner keeps its rights: a script stays executable, for its owner only.
      expect(notPrivate(dataDir).loose).toEqual([`700 ${join(dataDir, 'older', 'backup.sh')}`]);
      expect(statSync(join(dataDir, 'older', 'notes.txt')).mode & 0o777).toBe(0o600);
      expect(statSync(outside).mode & 0o777).toBe(0o644);
    } finally {
      await t.close();
    }
  });

  it('refuses a dev-secrets.json that others can read, saying how to fix it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-secrets-'));
    const secrets = join(dataDir, 'dev-secrets.json');
    writeFileSync(
      secrets,
      JSON.stringify({
        jwt_secret: 'j'.repeat(64),
        encryption_key: Buffer.alloc(32).toString('base64'),
      }),
    );
    chmodSync(secrets, 0o644);
    const service = startUnderUmask022({ DATA_DIR: dataDir });
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe(
      `agentline failed to start: ${secrets} is readable or writable by other users (mode 644): ` +
        `run \`chmod 600 ${secrets}\` and start again\n`,
    );
    // Refused, not quietly repaired: the operator decides (the secrets may have been exposed).
    expect(statSync(secrets).mode & 0o777).toBe(0o644);
  });
});
