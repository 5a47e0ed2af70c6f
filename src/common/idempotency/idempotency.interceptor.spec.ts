import { requestFingerprints } from './idempotency.interceptor';

describe('requestFingerprints', () => {
  it('keeps the fingerprint of the body as sent that earlier versions compare, and the one as JSON', () => {
    const sent = requestFingerprints('POST', '/v1/tools', { b: 1, a: 2 });
    const reordered = requestFingerprints('POST', '/v1/tools', { a: 2, b: 1 });
    expect(reordered.canonical).toBe(sent.canonical);
    expect(reordered.raw).not.toBe(sent.raw);
    expect(requestFingerprints('POST', '/v1/tools', { b: 1, a: 3 }).canonical).not.toBe(
      sent.canonical,
    );
  });

  it('tells a body with a number too large for a double from one with null, by either fingerprint', () => {
    const infinite = requestFingerprints('POST', '/v1/tools', JSON.parse('{"x":1e400}'));
    const nulled = requestFingerprints('POST', '/v1/tools', { x: null });
    expect(infinite.canonical).not.toBe(nulled.canonical);
    expect(infinite.raw).not.toBe(nulled.raw);
    // A body with finite numbers only keeps the fingerprint earlier versions wrote.
    expect(requestFingerprints('POST', '/v1/tools', { x: 1 }).raw).not.toBe(
      requestFingerprints('POST', '/v1/tools', { x: 2 }).raw,
    );
  });
});
