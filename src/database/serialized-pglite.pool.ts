import { setImmediate as nextTurn } from 'node:timers/promises';
import { PGlite, PGliteOptions, Results, types } from '@electric-sql/pglite';
import { Logger } from '@nestjs/common';
import { PGlitePool } from 'typeorm-pglite/dist/pglite-pool';
import { secureDataDir, tightenDataDir } from './data-dir';
import { EmbeddedDatabaseLock } from './embedded-database.lock';

/**
 * PostgreSQL settings of the embedded database, chosen for one process holding a small database
 * (README: "Memory of the embedded database"). PGlite is PostgreSQL in a WebAssembly heap that
 * grows and never gives memory back, and it starts with PostgreSQL's server defaults: 128 MB of
 * shared buffers, all touched at start-up (PGlite alone, opened outside agentline, idled at
 * 300 MB). Its files are read through the operating system's page cache like any file, so a small
 * buffer pool costs little; these are upper bounds of what a query may take from the heap for good.
 */
export const EMBEDDED_SETTINGS = [
  // 16 MB: the whole idle RSS of PGlite fell from 300 MB to 170 MB (8 MB saved only 6 MB more).
  '-c',
  'shared_buffers=16MB',
  // A CREATE INDEX in a migration (or a VACUUM) may use this much once; PostgreSQL's 64 MB would
  // stay in the heap for the life of the process.
  '-c',
  'maintenance_work_mem=16MB',
];

/** Who holds the embedded connection now: readiness tells a busy database from a stuck one. */
export interface EmbeddedTurns {
  /** performance.now() when the current holder got the connection; undefined while it is free. */
  heldSince?: number;
}

/**
 * How long transactions may follow one another on the embedded connection before the event loop
 * gets a turn. A hand-over is a promise, and PGlite answers without real I/O, so a queue of waiting
 * transactions (the senders, a webhook drain) would otherwise run back to back for seconds while
 * every request, timer and socket waits (issue 23: 1.2 s while 10,000 follow-ups went out).
 */
export const EMBEDDED_TURN_MS = 20;

type ConnectCallback = (error: unknown, client: PGlitePool | null, done: () => void) => void;
type QueryCallback = (error: unknown, results: Results<unknown> | null) => void;
type EndCallback = (error: unknown) => void;

/** TypeORM's booleans as PostgreSQL reads them (typeorm-pglite's own serializer). */
const serializeBoolean = (value: unknown): string =>
  value === true || value === 'true' || value === 1
    ? 'TRUE'
    : value === false || value === 'false' || value === 0
      ? 'FALSE'
      : String(value);

/**
 * The TypeORM `driver` option for an embedded PGlite database in `dataDir`.
 *
 * typeorm-pglite hands every query runner the same single PGlite connection, so two concurrent
 * transactions would interleave their statements. This pool lends the connection to one query
 * runner at a time (from connect() until release()), which gives each transaction the isolation it
 * has on PostgreSQL. The pool also holds the DATA_DIR lock for as long as it is open.
 */
export function serializedPGliteDriver(dataDir: string): {
  Pool: typeof PGlitePool;
  turns: EmbeddedTurns;
} {
  // Before PGlite writes anything: DATA_DIR 0700, its files 0600 (see secureDataDir).
  const tightened = secureDataDir(dataDir);
  if (tightened > 0) {
    new Logger('EmbeddedDatabase').log(
      `Made ${tightened} entries in ${dataDir} private to this user (0700 directories, 0600 files)`,
    );
  }
  const turns: EmbeddedTurns = {};
  const options: PGliteOptions = {
    dataDir: `${dataDir}/pgdata`,
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS],
    serializers: { [types.BOOL]: serializeBoolean },
  };

  /**
   * typeorm-pglite's own pool keeps one PGlite per process, in a static field: a second data
   * source (a test's second app while the first still closes) would write into the first one's
   * database. This pool opens and closes its own.
   */
  class SerializedPGlitePool extends PGlitePool {
    private tail: Promise<void> = Promise.resolve();
    private readonly lock = EmbeddedDatabaseLock.acquire(dataDir);
    private lastMacrotask = performance.now();
    private database?: Promise<PGlite>;

    private open(): Promise<PGlite> {
      this.database ??= PGlite.create(options).then(
        (database) => {
          // PGlite has created or opened its cluster now, with modes of its own choosing.
          tightenDataDir(dataDir);
          return database;
        },
        (error: unknown) => {
          // The next connection tries again (as typeorm-pglite's own instance does).
          this.database = undefined;
          throw error;
        },
      );
      return this.database;
    }

    override async connect(callback: ConnectCallback): Promise<void> {
      let release!: () => void;
      const turn = new Promise<void>((resolve) => (release = resolve));
      const previous = this.tail;
      this.tail = previous.then(() => turn);
      await previous;
      if (performance.now() - this.lastMacrotask >= EMBEDDED_TURN_MS) {
        // The connection is this caller's already (the tail waits for its turn): nobody overtakes.
        await nextTurn();
        this.lastMacrotask = performance.now();
      }
      const heldSince = performance.now();
      turns.heldSince = heldSince;
      let released = false;
      const done = (): void => {
        if (!released) {
          released = true;
          if (turns.heldSince === heldSince) turns.heldSince = undefined;
          release();
        }
      };
      try {
        await this.open();
      } catch (error) {
        done();
        callback(error, null, done);
        return;
      }
      callback(null, this, done);
    }

    /** As pg's client: bound parameters, or a script of statements answered by its last one. */
    override async query(
      sql: string,
      parameters?: unknown[] | QueryCallback,
      callback?: QueryCallback,
    ): Promise<Results<unknown>> {
      const answer = typeof parameters === 'function' ? parameters : callback;
      const values = typeof parameters === 'function' ? undefined : parameters;
      try {
        const database = await this.open();
        const results =
          values !== undefined && values.length > 0
            ? await database.query(sql, values)
            : ((await database.exec(sql)).at(-1) ?? { rows: [], fields: [] });
        answer?.(null, results);
        return results;
      } catch (error) {
        answer?.(error, null);
        throw error;
      }
    }

    override end(callback: EndCallback): void {
      const closed = this.database?.then((database) => database.close()) ?? Promise.resolve();
      this.database = undefined;
      closed.then(
        () => {
          this.lock.release();
          callback(null);
        },
        (error: unknown) => {
          this.lock.release();
          callback(error);
        },
      );
    }
  }
  return { Pool: SerializedPGlitePool, turns };
}

/** The turns of an embedded data source's connection; undefined on PostgreSQL. */
export function embeddedTurns(options: { driver?: unknown }): EmbeddedTurns | undefined {
  const driver = options.driver;
  return typeof driver === 'object' && driver !== null && 'turns' in driver
    ? (driver.turns as EmbeddedTurns)
    : undefined;
}
