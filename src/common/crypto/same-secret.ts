import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Whether a secret a caller sent equals the expected one, in time that tells neither where they
 * differ nor the expected one's length (both are hashed to 32 bytes first).
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
