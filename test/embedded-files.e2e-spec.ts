import { chmodSync, mkdirSync, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { notPrivate, startUnderUmask022 } from './support/private-files';
import { copyEmbeddedTemplate } from './support/template-database';
import { startApp } from './support/test-app';

/**
 * Embedded mode only: file permissions of a development setup. A first boot under umask 022 (a
 * child process that runs initdb) is embedded-files.alone-spec.ts.
 */
describe('Embedded files (e2e)', () => {
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
