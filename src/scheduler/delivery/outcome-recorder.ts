import { Logger } from '@nestjs/common';
import { databaseRetryDelayMs } from '../../common/backoff';
import { DatabaseAvailability } from '../../database/database-availability';
import { DeliveryOutbox, DeliveryOutcome } from './delivery-outbox';

interface Waiting {
  outcome: DeliveryOutcome;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class RecorderClosedError extends Error {
  constructor() {
    super('the outcome recorder was closed before the outcome could be written');
  }
}

/**
 * Group commit for delivery outcomes: an outcome is written at once when nothing else is being
 * written, else with everything that arrived meanwhile, in one statement. Each sender waits until
 * its outcome is durable before it takes the next message, so a crash can repeat at most one send
 * per sender (the calls in flight), while a busy worker still writes in batches.
 *
 * A write that fails (the database is away) is kept and retried, every second at most, for as long
 * as it takes: the row stays leased to this process (its heartbeat extends the lease, and other
 * processes judge it alive only by that heartbeat), so nobody sends it again meanwhile. Dropping
 * the outcome instead would lose the wamid and let the lease run out into a second send.
 */
export class OutcomeRecorder {
  private readonly logger = new Logger(OutcomeRecorder.name);
  private readonly queue: Waiting[] = [];
  private writing?: Promise<void>;
  private closed = false;
  private wakeRetry?: () => void;

  constructor(
    private readonly outbox: DeliveryOutbox,
    private readonly owner: string,
    private readonly now: () => number,
    private readonly availability: DatabaseAvailability,
  ) {}

  record(outcome: DeliveryOutcome): Promise<void> {
    if (this.closed) return Promise.reject(new RecorderClosedError());
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ outcome, resolve, reject });
      this.write();
    });
  }

  /** Stops retrying (shutdown after the grace period): outcomes not yet written are given up. */
  close(): void {
    this.closed = true;
    this.wakeRetry?.();
    for (const waiting of this.queue.splice(0)) waiting.reject(new RecorderClosedError());
  }

  /** The write is idempotent (it checks the lease owner), so it is simply tried again. */
  private async recordUntilWritten(outcomes: DeliveryOutcome[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const lost = await this.outbox.record(this.owner, this.now(), outcomes);
        if (lost.length > 0) {
          this.logger.warn(
            { deliveryIds: lost },
            'outcomes arrived after their deliveries were taken over by another process; only their attempts were recorded',
          );
        }
        return;
      } catch (error) {
        if (this.closed) throw error;
        // An outage is logged once, by DatabaseAvailability; anything else once per batch.
        if (!this.availability.reportFailure(error) && attempt === 0) {
          this.logger.error(
            { err: error, outcomes: outcomes.length },
            'could not record delivery outcomes; keeping them and trying again',
          );
        }
        const delay = databaseRetryDelayMs(attempt);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wakeRetry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeRetry = undefined;
        if (this.closed) throw error;
      }
    }
  }

  private write(): void {
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.queue.length);
    this.writing = this.recordUntilWritten(batch.map((waiting) => waiting.outcome))
      .then(
        () => batch.forEach((waiting) => waiting.resolve()),
        (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
      )
      .finally(() => {
        this.writing = undefined;
        this.write();
      });
  }
}
