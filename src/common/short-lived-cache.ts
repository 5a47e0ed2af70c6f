/**
 * Values looked up lately, each kept for `ttlMs`: for a hot public route that would otherwise read
 * the same row on every request (Meta's webhooks, hundreds a second for one channel). Only values
 * found are kept (ids sprayed at the route fill nothing), at most `max`, the oldest dropped first.
 * Concurrent look-ups of one key share one.
 */
export class ShortLivedCache<T> {
  private readonly entries = new Map<string, { until: number; value: Promise<T | undefined> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  find(key: string, lookUp: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = performance.now();
    const entry = this.entries.get(key);
    if (entry && entry.until > now) return entry.value;
    this.entries.delete(key);
    if (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const value = lookUp();
    this.entries.set(key, { until: now + this.ttlMs, value });
    const drop = () => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    };
    // A miss or a failure is not kept: the next request looks again.
    value.then((found) => found === undefined && drop(), drop);
    return value;
  }

  /** After a write this process made: its next look-up reads it. */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
