import { retryDelayMs } from './backoff';

describe('retryDelayMs', () => {
  it('grows exponentially with the attempt count, at full jitter', () => {
    expect(retryDelayMs(1, 0, () => 0.999)).toBe(999);
    expect(retryDelayMs(2, 0, () => 0.999)).toBe(1998);
    expect(retryDelayMs(5, 0, () => 0.5)).toBe(8000);
  });

  it('is capped at five minutes', () => {
    expect(retryDelayMs(30, 0, () => 0.999)).toBe(299_700);
  });

  it('never retries sooner than Retry-After, nor in under 100 ms', () => {
    expect(retryDelayMs(1, 30_000, () => 0.1)).toBe(30_000);
    expect(retryDelayMs(1, 0, () => 0)).toBe(100);
  });
});
