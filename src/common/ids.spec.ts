import { isUuid, newVerificationToken, pooledRandomBytes, uuidv7 } from './ids';

describe('uuidv7', () => {
  it('is a version 7, RFC 9562 variant UUID carrying the millisecond', () => {
    const id = uuidv7(Date.UTC(2026, 0, 1));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.UTC(2026, 0, 1));
  });

  it('sorts in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7(Date.UTC(2030, 0, 1)));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('never goes backwards when the clock does', () => {
    const later = uuidv7(Date.UTC(2031, 0, 1));
    expect(uuidv7(Date.UTC(2031, 0, 1) - 5000) > later).toBe(true);
  });
});

describe('isUuid and newVerificationToken', () => {
  it('recognises UUIDs only', () => {
    expect(isUuid(uuidv7())).toBe(true);
    expect(isUuid('not-a-uuid')).toBe(false);
    expect(isUuid(`${uuidv7()}x`)).toBe(false);
  });

  it('makes 43-character URL-safe tokens, different every time', () => {
    const token = newVerificationToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newVerificationToken()).not.toBe(token);
  });
});

describe('pooledRandomBytes', () => {
  it('never hands out the same bytes twice, across many refills of the pool', () => {
    const draws = Array.from({ length: 2000 }, () => pooledRandomBytes(12).toString('hex'));
    expect(new Set(draws).size).toBe(draws.length);
  });

  it('returns copies that later draws do not overwrite', () => {
    const first = pooledRandomBytes(32);
    const kept = Buffer.from(first);
    for (let i = 0; i < 500; i++) pooledRandomBytes(32);
    expect(first.equals(kept)).toBe(true);
  });

  it('serves a draw larger than the pool from the generator itself', () => {
    const large = pooledRandomBytes(10_000);
    expect(large).toHaveLength(10_000);
    expect(large.subarray(5_000).equals(Buffer.alloc(5_000))).toBe(false);
  });
});
