const BASE_DELAY_MS = 1_000;
const MAX_DELAY_MS = 5 * 60_000;

/**
 * Exponential backoff with full jitter (AWS architecture blog): the wait before attempt n+1 is
 * uniform in [0, min(cap, base * 2^(n-1))], never shorter than a server's Retry-After.
 */
export function retryDelayMs(
  attempts: number,
  retryAfterMs = 0,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.max(retryAfterMs, Math.floor(random() * ceiling), 100);
}

const DATABASE_RETRY_DELAYS_MS = [100, 250, 500, 1_000];

/**
 * The wait before trying a write again while the database is away (attempt 0 is the first retry):
 * quick at first, for a blip, then once a second for as long as it takes.
 */
export const databaseRetryDelayMs = (attempt: number): number =>
  DATABASE_RETRY_DELAYS_MS[Math.min(attempt, DATABASE_RETRY_DELAYS_MS.length - 1)];
