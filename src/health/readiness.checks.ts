import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { HealthIndicatorService } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { DatabaseAvailability } from '../database/database-availability';
import { SchedulerEngine } from '../scheduler/scheduler.engine';

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
    private readonly engine: SchedulerEngine,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async database() {
    const check = this.indicators.check('database');
    return (await this.availability.probe())
      ? check.up()
      : check.down({ reason: 'it does not answer within 2 s' });
  }

  /** Pending migrations mean another version's schema: this replica would fail its queries. */
  async migrations() {
    const check = this.indicators.check('migrations');
    if (!(await this.availability.probe())) {
      return check.down({ reason: 'not checked while the database is away' });
    }
    try {
      return (await this.dataSource.showMigrations())
        ? check.down({ reason: 'some migrations are not applied' })
        : check.up();
    } catch {
      return check.down({ reason: 'the migrations table cannot be read' });
    }
  }

  scheduler() {
    const check = this.indicators.check('scheduler');
    const { enabled, sinceLastTickMs, tickMs } = this.engine.tickState();
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
