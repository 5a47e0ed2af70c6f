import { Clock } from '../clock';

/** Above this many tracked keys, expired windows are swept; above MAX_KEYS the oldest go. */
const SWEEP_AT = 10_000;
const MAX_KEYS = 100_000;

export interface CountWindow {
  endsAt: number;
  count: number;
}

/**
 * Counts per key in fixed windows, in memory, with bounded memory: the API rate limit counts
 * requests per organization with it, and the auth failure limit failed tokens per address.
 */
export class WindowCounters {
  private readonly windows = new Map<string, CountWindow>();

  constructor(
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one more for `key`; returns its window, with the count including this one. */
  hit(key: string): CountWindow {
    const window = this.current(key);
    if (window) {
      window.count++;
      return window;
    }
    if (this.windows.size >= SWEEP_AT) this.sweep();
    const fresh = { endsAt: this.clock.now() + this.windowMs, count: 1 };
    this.windows.set(key, fresh);
    return fresh;
  }

  /** The key's window as it stands, if one is open. */
  current(key: string): CountWindow | undefined {
    const window = this.windows.get(key);
    if (window && window.endsAt <= this.clock.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(key);
    }
    // Still full (a flood from very many keys): forget the oldest windows; memory stays bounded.
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS) break;
      this.windows.delete(key);
    }
  }
}
