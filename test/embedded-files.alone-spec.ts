import { mkdtempSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { notPrivate, startUnderUmask022 } from './support/private-files';

/** The first boot of a child process: ts-node, then PGlite's initdb and every migration. */
const FIRST_BOOT_MS = 150_000;

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

/**
 * Embedded mode only: the files and listen address of a development setup's first boot. The child
 * process compiles the service and creates its database from nothing, which took over the 60 s
 * test time-out on a loaded machine: so it runs alone, with a time-out of its own.
 */
describe('Embedded files and listen address on a first boot (e2e, alone)', () => {
  it(
    'creates DATA_DIR 0700 with every file 0600 under umask 022, and listens on 127.0.0.1 with generated secrets',
    async () => {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'agentline-files-')), 'data');
      const service = startUnderUmask022({ DATA_DIR: dataDir });
      try {
        const deadline = Date.now() + FIRST_BOOT_MS;
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
    },
    FIRST_BOOT_MS + 30_000,
  );
});
