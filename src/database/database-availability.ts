import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import {
  DatabaseOutageReporter,
  describeDatabaseError,
  isDatabaseUnavailable,
} from '../common/database-errors';
import { DatabaseProbe } from './database-probe';

/** While the database is away, how often this process looks whether it is back. */
const RECOVERY_PROBE_INTERVAL_MS = 1_000;

/**
 * Whether this process can reach its database. Whoever meets a database error reports it here
 * instead of logging it, so that an outage is one line when it starts and one when it ends (with
 * how long it lasted), not an error per request and per tick. While the database is away, a probe
 * every second notices its return, whether or not anything else is trying.
 */
@Injectable()
export class DatabaseAvailability implements DatabaseOutageReporter, BeforeApplicationShutdown {
  private readonly logger = new Logger(DatabaseAvailability.name);
  private outage?: { since: number; reason: string };
  private probing?: Promise<boolean>;
  private recoveryTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly databaseProbe: DatabaseProbe,
    private readonly clock: Clock,
  ) {}

  /**
   * True when the error is the database being unreachable or refusing to serve: it is then logged
   * here (once per outage) and the caller should not log it again.
   */
  reportFailure(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    this.markUnavailable(describeDatabaseError(error));
    return true;
  }

  /** A query that started at `startedAt` answered; one that started before the outage proves nothing. */
  reportSuccess(startedAt: number): void {
    if (this.outage && startedAt >= this.outage.since) this.markAvailable();
  }

  /**
   * The database answers this process within PROBE_TIMEOUT_MS (DatabaseProbe: never behind a busy
   * pool); concurrent callers share the probe in flight.
   */
  probe(): Promise<boolean> {
    this.probing ??= this.runProbe().finally(() => (this.probing = undefined));
    return this.probing;
  }

  beforeApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.recoveryTimer);
  }

  private async runProbe(): Promise<boolean> {
    const startedAt = this.clock.now();
    const answer = await this.databaseProbe.check();
    if (answer.up) {
      this.reportSuccess(startedAt);
      return true;
    }
    // Anything else (a pool that is shutting down) is not an outage, but not ready either.
    if (answer.error === undefined) this.markUnavailable(answer.reason);
    else this.reportFailure(answer.error);
    return false;
  }

  private markUnavailable(reason: string): void {
    if (this.outage || this.stopped) return;
    this.outage = { since: this.clock.now(), reason };
    this.logger.error(
      { reason },
      `database unavailable: ${reason}; requests that need it answer 503 until it is back`,
    );
    this.scheduleRecoveryProbe();
  }

  private markAvailable(): void {
    if (!this.outage) return;
    const unavailableMs = Math.max(0, this.clock.now() - this.outage.since);
    this.outage = undefined;
    clearTimeout(this.recoveryTimer);
    this.logger.log(
      { unavailableMs },
      `database available again after ${(unavailableMs / 1000).toFixed(1)} s`,
    );
  }

  private scheduleRecoveryProbe(): void {
    clearTimeout(this.recoveryTimer);
    if (this.stopped || !this.outage) return;
    this.recoveryTimer = setTimeout(() => {
      void this.probe().then(() => this.scheduleRecoveryProbe());
    }, RECOVERY_PROBE_INTERVAL_MS);
    this.recoveryTimer.unref();
  }
}
