import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class EmbeddedDatabaseInUseError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite serves exactly one process; a second one on the same files would corrupt them. A pid file
 * in DATA_DIR makes the second process fail at once with a message that says what to do instead.
 */
export class EmbeddedDatabaseLock {
  private constructor(private readonly file: string) {}

  static acquire(dataDir: string): EmbeddedDatabaseLock {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, 'agentline.pid');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new EmbeddedDatabaseLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
        if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
          throw new EmbeddedDatabaseInUseError(
            `The embedded database in ${dataDir} is in use by another agentline process (pid ${holder}). ` +
              'PGlite serves one process: stop that process, start this one with another DATA_DIR, ' +
              'or set DATABASE_URL to run several processes on PostgreSQL.',
          );
        }
        // A stale lock from a process that died (or from this one, before a restart): take it over.
        rmSync(file, { force: true });
      }
    }
    throw new EmbeddedDatabaseInUseError(`Could not lock the embedded database in ${dataDir}`);
  }

  release(): void {
    rmSync(this.file, { force: true });
  }
}
