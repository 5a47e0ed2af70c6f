import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { DedicatedConnection } from './dedicated-connection';
import { embeddedTurns, EmbeddedTurns } from './serialized-pglite.pool';

/** A probe that takes longer than this counts as the database being away (readiness must be quick). */
export const PROBE_TIMEOUT_MS = 2_000;
/**
 * On the embedded database, one transaction holding the only connection longer than this is stuck
 * (a leaked query runner, a runaway statement); shorter, the database is only busy.
 */
export const EMBEDDED_STUCK_AFTER_MS = 30_000;

export type ProbeAnswer =
  | {
      up: true;
      /** Migrations of this version not recorded in the database; undefined when never read. */
      pendingMigrations?: string[];
      /** Embedded only: the connection was busy, for this long, so nothing was asked. */
      busyForMs?: number;
    }
  | { up: false; reason: string; error?: unknown };

/**
 * Asks the database whether it serves this process, without waiting behind this process's work.
 *
 * On PostgreSQL the probe has a connection of its own, outside the pool (opened again when lost,
 * with a short statement time-out), so that a pool whose every connection is busy does not read as
 * a database that is down. The embedded database has one connection, lent to one transaction at a
 * time: while a transaction holds it, the database is busy, not away, and counts as up until the
 * transaction has held it for EMBEDDED_STUCK_AFTER_MS.
 */
@Injectable()
export class DatabaseProbe implements BeforeApplicationShutdown {
  private readonly connection?: DedicatedConnection;
  private readonly turns?: EmbeddedTurns;
  private readonly migrationNames: string[];
  private checking?: Promise<ProbeAnswer>;
  /** What the last check that read them found, answered while the embedded database is busy. */
  private lastPending?: string[];

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    const options = dataSource.options as PostgresConnectionOptions;
    this.turns = embeddedTurns(options);
    if (options.url) {
      this.connection = new DedicatedConnection(options.url, {
        applicationName: 'agentline probe',
        config: {
          keepAlive: true,
          connectionTimeoutMillis: PROBE_TIMEOUT_MS,
          statement_timeout: PROBE_TIMEOUT_MS,
        },
      });
    }
    this.migrationNames = dataSource.migrations.map(
      (migration) => migration.name ?? migration.constructor.name,
    );
  }

  /** Reads the applied migrations within PROBE_TIMEOUT_MS; concurrent callers share one check. */
  check(): Promise<ProbeAnswer> {
    this.checking ??= this.run().finally(() => (this.checking = undefined));
    return this.checking;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.connection?.close();
  }

  private async run(): Promise<ProbeAnswer> {
    const heldSince = this.turns?.heldSince;
    if (heldSince !== undefined) {
      const busyForMs = Math.round(performance.now() - heldSince);
      return busyForMs < EMBEDDED_STUCK_AFTER_MS
        ? { up: true, busyForMs, pendingMigrations: this.lastPending }
        : {
            up: false,
            reason: `one transaction has held the embedded database for ${Math.round(busyForMs / 1000)} s`,
          };
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed out'>((resolve) => {
      timer = setTimeout(() => resolve('timed out'), PROBE_TIMEOUT_MS);
    });
    try {
      const rows = await Promise.race([this.appliedMigrations(), timedOut]);
      if (rows === 'timed out') {
        // A connection that does not answer may be stuck on a dead network: the next probe opens
        // another.
        this.connection?.drop();
        return { up: false, reason: `it does not answer within ${PROBE_TIMEOUT_MS} ms` };
      }
      const applied = new Set(rows.map((row) => row.name));
      this.lastPending = this.migrationNames.filter((name) => !applied.has(name));
      return { up: true, pendingMigrations: this.lastPending };
    } catch (error) {
      // The reason is public (/health/ready): the error, which may name the database's host, is only
      // logged (DatabaseAvailability).
      return { up: false, reason: 'it does not answer', error };
    } finally {
      clearTimeout(timer);
    }
  }

  private async appliedMigrations(): Promise<{ name: string }[]> {
    const sql = `SELECT name FROM ${this.dataSource.options.migrationsTableName ?? 'migrations'}`;
    if (!this.connection) return this.dataSource.query<{ name: string }[]>(sql);
    const client = await this.connection.open();
    if (!client) throw new Error('the probe connection is closed');
    return (await client.query<{ name: string }>(sql)).rows;
  }
}
