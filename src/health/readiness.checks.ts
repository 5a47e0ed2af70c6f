import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DatabaseAvailability } from '../database/database-availability';
import { DatabaseProbe } from '../database/database-probe';
import { SchedulerTicks } from './scheduler-ticks';

/** A scheduler whose last tick ended longer ago than this many tick intervals is stuck. */
const STALLED_AFTER_TICKS = 5;
/** ...and never less than this, so that a short SCHEDULER_TICK_MS does not flap on a busy tick. */
const STALLED_AFTER_MS = 30_000;

/** The checks behind `GET /health/ready`, as terminus health indicators. */
@Injectable()
export class ReadinessChecks {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly availability: DatabaseAvailability,
    private readonly ticks: SchedulerTicks,
    private readonly probe: DatabaseProbe,
  ) {}

  /**
   * Through DatabaseProbe: on PostgreSQL a connection of its own, so a pool whose connections are
   * all busy still reads as ready; on the embedded database, a transaction that holds the one
   * connection reads as busy (`busy_ms`) until it is stuck.
   */
  async database() {
    const check = this.indicators.check('database');
    const [up, answer] = await Promise.all([this.availability.probe(), this.probe.check()]);
    if (!up) {
      return check.down({ reason: answer.up ? 'it does not answer' : answer.reason });
    }
    return answer.up && answer.busyForMs !== undefined
      ? check.up({ busy_ms: answer.busyForMs })
      : check.up();
  }

  /**
   * Pending migrations mean another version's schema: this replica would fail its queries. Read
   * by the same probe (its own connection), so a busy pool does not fail this check either.
   */
  async migrations() {
    const check = this.indicators.check('migrations');
    const answer = await this.probe.check();
    if (!answer.up) return check.down({ reason: 'not checked while the database is away' });
    if (answer.pendingMigrations === undefined) return check.up({ checked: false });
    return answer.pendingMigrations.length > 0
      ? check.down({ reason: 'some migrations are not applied' })
      : check.up();
  }

  scheduler() {
    const check = this.indicators.check('scheduler');
    const { enabled, sinceLastTickMs, tickMs } = this.ticks.tickState();
    if (!enabled) return check.up({ enabled: false });
    const stalledAfterMs = Math.max(STALLED_AFTER_MS, STALLED_AFTER_TICKS * tickMs);
    if (sinceLastTickMs === undefined) {
      return check.down({ reason: 'no tick has completed yet' });
    }
    return sinceLastTickMs > stalledAfterMs
      ? check.down({ reason: `no tick has completed for ${Math.round(sinceLastTickMs / 1000)} s` })
      : check.up({ last_tick_ms_ago: Math.round(sinceLastTickMs) });
  }
}
