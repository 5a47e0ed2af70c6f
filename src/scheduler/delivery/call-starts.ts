import { ClaimRef, claimKey, DeliveryOutbox } from './delivery-outbox';

interface Waiting {
  claim: ClaimRef;
  resolve: (started: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * The check on the database right before each call to Meta (`DeliveryOutbox.startCalls`), for the
 * sends that reach it together in one statement: the messages of a claimed batch are written in
 * the same turn of the event loop, so a batch is checked in one round trip instead of one per
 * message. Checks that arrive while a statement runs go in the next one. Each send still calls
 * only after a check that ran once its message was written.
 */
export class CallStarts {
  private queue: Waiting[] = [];
  private scheduled = false;
  private checking = false;

  constructor(
    private readonly outbox: DeliveryOutbox,
    private readonly owner: string,
    private readonly options: () => { now: number; leaseMs: number; heartbeatTimeoutMs: number },
  ) {}

  /** True when the call may be made; rejects when the database could not be asked. */
  start(claim: ClaimRef): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ claim, resolve, reject });
      this.schedule();
    });
  }

  /** After the sends that are ready in this turn have queued theirs. */
  private schedule(): void {
    if (this.scheduled || this.checking || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.check();
    });
  }

  private async check(): Promise<void> {
    this.checking = true;
    const batch = this.queue;
    this.queue = [];
    try {
      const started = new Set(
        (
          await this.outbox.startCalls(
            this.owner,
            batch.map((waiting) => waiting.claim),
            this.options(),
          )
        ).map(claimKey),
      );
      batch.forEach((waiting) => waiting.resolve(started.has(claimKey(waiting.claim))));
    } catch (error) {
      batch.forEach((waiting) => waiting.reject(error));
    } finally {
      this.checking = false;
      this.schedule();
    }
  }
}
