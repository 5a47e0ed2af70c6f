import { DeliveryOutbox, DeliveryOutcome } from './delivery-outbox';

const RETRY_DELAYS_MS = [100, 500, 2_000];

interface Waiting {
  outcome: DeliveryOutcome;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for delivery outcomes: an outcome is written at once when nothing else is being
 * written, else with everything that arrived meanwhile, in one statement. Each sender waits until
 * its outcome is durable before it takes the next message, so a crash can repeat at most one send
 * per sender (the calls in flight), while a busy worker still writes in batches.
 */
export class OutcomeRecorder {
  private readonly queue: Waiting[] = [];
  private writing?: Promise<void>;

  constructor(
    private readonly outbox: DeliveryOutbox,
    private readonly owner: string,
    private readonly now: () => number,
  ) {}

  record(outcome: DeliveryOutcome): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ outcome, resolve, reject });
      this.write();
    });
  }

  /** The write is idempotent (it checks the lease owner), so a passing database error is retried. */
  private async recordWithRetries(outcomes: DeliveryOutcome[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.outbox.record(this.owner, this.now(), outcomes);
        return;
      } catch (error) {
        if (attempt >= RETRY_DELAYS_MS.length) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
      }
    }
  }

  private write(): void {
    if (this.writing || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.queue.length);
    this.writing = this.recordWithRetries(batch.map((waiting) => waiting.outcome))
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
