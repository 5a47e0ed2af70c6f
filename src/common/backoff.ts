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
