import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  Provider,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { PeriodicTask } from '../common/periodic-task';
import { toIso } from '../common/time';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseAvailability } from './database-availability';
import { returnedRows } from './sql';

/**
 * Rows of one table that nothing needs after RETENTION_DAYS, described by the module that owns the
 * table. `deleteBatch` deletes at most `$2` rows older than `$1` (a timestamptz) and returns one
 * row per row deleted; it must lock what it deletes with `FOR UPDATE SKIP LOCKED`, so that
 * replicas pruning at once take different rows and never wait for each other.
 */
export interface RetentionPolicy {
  table: string;
  deleteBatch: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Every replica prunes this often (and once at start). */
const PRUNE_EVERY_MS = 10 * 60 * 1000;
/** Rows per statement: short statements, so that no lock is held long and PGlite is not held. */
const BATCH_SIZE = 500;

/**
 * Prunes, on every replica, what each module's RetentionPolicy says is past RETENTION_DAYS (by the
 * injected clock). Safe when several replicas run it at once: each batch is an idempotent DELETE
 * of rows it locked without waiting.
 */
@Injectable()
export class Retention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(Retention.name);
  private readonly policies: RetentionPolicy[] = [];
  private readonly task: PeriodicTask;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly availability: DatabaseAvailability,
  ) {
    this.task = new PeriodicTask(
      async () => {
        await this.pruneExpired();
      },
      PRUNE_EVERY_MS,
      (error) => {
        // An outage is logged once, by DatabaseAvailability; the next round tries again.
        if (!this.availability.reportFailure(error)) {
          this.logger.warn({ err: error }, 'old rows could not be pruned; trying again later');
        }
      },
    );
  }

  register(policy: RetentionPolicy): void {
    this.policies.push(policy);
  }

  onApplicationBootstrap(): void {
    if (this.config.retentionDays > 0) this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /**
   * Deletes, batch after batch, what is older than RETENTION_DAYS; returns how many rows went, by
   * table. Nothing with RETENTION_DAYS=0.
   */
  async pruneExpired(batchSize = BATCH_SIZE): Promise<Record<string, number>> {
    const pruned: Record<string, number> = {};
    if (this.config.retentionDays === 0) return pruned;
    const before = toIso(this.clock.now() - this.config.retentionDays * DAY_MS);
    for (const policy of this.policies) {
      let total = 0;
      let deleted: number;
      do {
        deleted = returnedRows(
          await this.dataSource.query(policy.deleteBatch, [before, batchSize]),
        ).length;
        total += deleted;
        // Other work (requests, PGlite's other statements) goes between batches.
        await nextTurn();
      } while (deleted === batchSize);
      pruned[policy.table] = total;
      if (total > 0) {
        this.logger.log(
          { table: policy.table, rows: total },
          `pruned ${total} rows of ${policy.table} older than ${this.config.retentionDays} days`,
        );
      }
    }
    return pruned;
  }
}

/** A provider that registers a module's policy, for that module's `providers`. */
export function retentionOf(policy: RetentionPolicy): Provider {
  return {
    provide: `retention:${policy.table}`,
    inject: [Retention],
    useFactory: (retention: Retention) => retention.register(policy),
  };
}
