import { ManualClock } from '../../../test/support/manual-clock';
import { RateLimitPolicy } from './rate-limit-policy';

describe('RateLimitPolicy', () => {
  it("says where a key stands in the draft's structured fields, per key and window", () => {
    const clock = new ManualClock(0);
    const policy = new RateLimitPolicy('organization', 2, 60_000, clock);
    expect(policy.peek('a')).toEqual({
      exceeded: false,
      remaining: 2,
      resetSeconds: 60,
      headers: {
        'RateLimit-Policy': '"organization";q=2;w=60',
        RateLimit: '"organization";r=2;t=60',
      },
    });
    expect(policy.hit('a').headers.RateLimit).toBe('"organization";r=1;t=60');
    clock.advance(10_500);
    expect(policy.hit('a')).toMatchObject({ exceeded: false, remaining: 0, resetSeconds: 50 });
    expect(policy.hit('a')).toMatchObject({ exceeded: true, remaining: 0, resetSeconds: 50 });
    // Another key has a budget of its own.
    expect(policy.hit('b').headers.RateLimit).toBe('"organization";r=1;t=60');
    // A new window once the old one is over; t never reads 0 within one.
    clock.advance(49_000);
    expect(policy.peek('a').resetSeconds).toBe(1);
    clock.advance(500);
    expect(policy.hit('a')).toMatchObject({ exceeded: false, remaining: 1, resetSeconds: 60 });
  });
});
