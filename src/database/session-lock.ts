import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { DedicatedConnection } from './dedicated-connection';

/** The first key of every session lock (the second is the hashed name); see sessionLockHeld. */
const SESSION_LOCK_SPACE = 7_331_002;

/**
 * SQL that is true while some PostgreSQL session holds the session lock named by the text
 * expression `name`. An advisory lock taken with two int4 keys shows in pg_locks as
 * (classid, objid, objsubid 2). A hash collision can only make a name look held.
 */
export const sessionLockHeld = (name: string) =>
  `EXISTS (SELECT 1 FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.classid = ${SESSION_LOCK_SPACE} AND l.objid = hashtext(${name})::oid)`;

/**
 * A lock that lives exactly as long as this process's own database session: a process killed with
 * SIGKILL loses its connection, and PostgreSQL drops the lock at once, while a process that is
 * only cut off from the database keeps its session (and the lock) until TCP gives up on it. So
 * others can tell a dead process from a silent one without waiting on their own age.
 *
 * On PostgreSQL the lock is held on a connection of its own, outside the pool, taken again after
 * it is lost; on the embedded database (one process, one connection) on that connection.
 */
export class SessionLock {
  private readonly logger = new Logger(SessionLock.name);
  private connection?: DedicatedConnection;
  private embeddedHeld = false;
  private everLost = false;
  private holding?: Promise<void>;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly name: string,
  ) {}

  /**
   * Held since this process first took it, never lost: its database session has lived as long as
   * this process has been working. A process whose lock was lost (a network cut, a database
   * restart) cannot tell whether the others lost theirs to the same cause.
   */
  get unbroken(): boolean {
    return !this.everLost && (this.embeddedHeld || this.connection?.current !== undefined);
  }

  /** Takes the lock if it is not held (first call, or its connection was lost). */
  hold(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.holding ??= this.take().finally(() => (this.holding = undefined));
    return this.holding;
  }

  async release(): Promise<void> {
    this.closed = true;
    await this.holding?.catch(() => undefined);
    await this.connection?.close();
  }

  private async take(): Promise<void> {
    const options = this.dataSource.options as PostgresConnectionOptions;
    // A try: a name whose hash another process holds (a collision) must not block; it only makes
    // this process look alive while its session is gone.
    const lock = `SELECT pg_try_advisory_lock(${SESSION_LOCK_SPACE}, hashtext($1))`;
    if (!options.url) {
      // Embedded: one connection for everything, which lives as long as the process.
      if (!this.embeddedHeld) {
        await this.dataSource.query(lock, [this.name]);
        this.embeddedHeld = true;
      }
      return;
    }
    this.connection ??= new DedicatedConnection(options.url, {
      applicationName: 'agentline session lock',
      // The pool's connect time-out: a host that drops packets must not hold this open for the
      // operating system's SYN retries (minutes).
      config: {
        keepAlive: true,
        connectionTimeoutMillis:
          (options.extra as { connectionTimeoutMillis?: number } | undefined)
            ?.connectionTimeoutMillis ?? 5_000,
      },
      prepare: (client) => client.query(lock, [this.name]),
      onLost: (error) => {
        this.everLost = true;
        // One line, no stack: an outage is reported by DatabaseAvailability already.
        if (error) {
          this.logger.warn(
            { reason: error.message },
            'lost the session lock connection; it is taken again with the next heartbeat',
          );
        }
      },
    });
    try {
      await this.connection.open();
    } catch (error) {
      // Never held at the first try counts as broken too: see unbroken.
      this.everLost = true;
      throw error;
    }
  }
}
