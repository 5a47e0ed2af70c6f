import { Logger } from '@nestjs/common';
import { PGliteDriver } from 'typeorm-pglite';
import { PGlitePool } from 'typeorm-pglite/dist/pglite-pool';
import { secureDataDir, tightenDataDir } from './data-dir';
import { EmbeddedDatabaseLock } from './embedded-database.lock';

type ConnectCallback = (error: unknown, client: PGlitePool | null, done: () => void) => void;
type EndCallback = (error: unknown) => void;

/**
 * The TypeORM `driver` option for an embedded PGlite database in `dataDir`.
 *
 * typeorm-pglite hands every query runner the same single PGlite connection, so two concurrent
 * transactions would interleave their statements. This pool lends the connection to one query
 * runner at a time (from connect() until release()), which gives each transaction the isolation it
 * has on PostgreSQL. The pool also holds the DATA_DIR lock for as long as it is open.
 */
export function serializedPGliteDriver(dataDir: string): { Pool: typeof PGlitePool } {
  // Before PGlite writes anything: DATA_DIR 0700, its files 0600 (see secureDataDir).
  const tightened = secureDataDir(dataDir);
  if (tightened > 0) {
    new Logger('EmbeddedDatabase').log(
      `Made ${tightened} entries in ${dataDir} private to this user (0700 directories, 0600 files)`,
    );
  }
  let opened = false;
  // The constructor registers the PGlite options for the shared instance typeorm-pglite creates.
  new PGliteDriver({ dataDir: `${dataDir}/pgdata` });

  class SerializedPGlitePool extends PGlitePool {
    private tail: Promise<void> = Promise.resolve();
    private readonly lock = EmbeddedDatabaseLock.acquire(dataDir);

    override async connect(callback: ConnectCallback): Promise<void> {
      let release!: () => void;
      const turn = new Promise<void>((resolve) => (release = resolve));
      const previous = this.tail;
      this.tail = previous.then(() => turn);
      await previous;
      let released = false;
      const done = (): void => {
        if (!released) {
          released = true;
          release();
        }
      };
      await super.connect((error, client) => {
        if (error) done();
        else if (!opened) {
          opened = true;
          // PGlite has created or opened its cluster now, with modes of its own choosing.
          tightenDataDir(dataDir);
        }
        callback(error, client, done);
      });
    }

    override end(callback: EndCallback): void {
      super.end((error: unknown) => {
        this.lock.release();
        callback(error);
      });
    }
  }
  return { Pool: SerializedPGlitePool };
}
