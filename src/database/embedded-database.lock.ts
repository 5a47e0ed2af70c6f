import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export class EmbeddedDatabaseInUseError extends Error {}

const LOCK_FILE = 'agentline.pid';

const inUse = (dataDir: string, pid: number) =>
  new EmbeddedDatabaseInUseError(
    `The embedded database in ${dataDir} is in use by another agentline process (pid ${pid}). ` +
      'PGlite serves one process: stop that process, start this one with another DATA_DIR, ' +
      'or set DATABASE_URL to run several processes on PostgreSQL.',
  );

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

  /** Fails fast, before anything else starts, when another live process holds the directory. */
  static assertAvailable(dataDir: string): void {
    const holder = EmbeddedDatabaseLock.holder(join(dataDir, LOCK_FILE));
    if (holder !== undefined) throw inUse(dataDir, holder);
  }

  /** The pid of another live process that holds the lock file, if any. */
  private static holder(file: string): number | undefined {
    if (!existsSync(file)) return undefined;
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : undefined;
  }

  static acquire(dataDir: string): EmbeddedDatabaseLock {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(file, 'wx', 0o600);
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new EmbeddedDatabaseLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = EmbeddedDatabaseLock.holder(file);
        if (holder !== undefined) throw inUse(dataDir, holder);
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
