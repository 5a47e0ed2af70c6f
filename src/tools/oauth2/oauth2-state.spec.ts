import { createHmac } from 'node:crypto';
import { newStateNonce, signState, STATE_TTL_MS, verifyState } from './oauth2-state';

const secret = Buffer.alloc(32, 9);
const now = 1_764_000_000_000;

describe('OAuth2 state', () => {
  const issue = (expiresAt = now + STATE_TTL_MS) =>
    signState({ nonce: newStateNonce(), expiresAt }, secret);

  it('verifies what it signed, giving back the nonce and expiry', () => {
    const nonce = newStateNonce();
    const state = signState({ nonce, expiresAt: now + STATE_TTL_MS }, secret);
    expect(state).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyState(state, secret, now)).toEqual({
      valid: true,
      payload: { nonce, expiresAt: now + STATE_TTL_MS },
    });
  });

  it('makes a new nonce (256 bits) for every authorization', () => {
    const nonces = new Set(Array.from({ length: 20 }, newStateNonce));
    expect(nonces.size).toBe(20);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a state signed with another secret', () => {
    const state = signState({ nonce: 'n', expiresAt: now + 1000 }, Buffer.alloc(32, 1));
    expect(verifyState(state, secret, now)).toEqual({ valid: false, reason: 'bad_signature' });
  });

  it('refuses a tampered payload or signature', () => {
    const [version, body, signature] = issue().split('.');
    const forged = Buffer.from(JSON.stringify({ n: 'other', e: now + 1e9 })).toString('base64url');
    expect(verifyState(`${version}.${forged}.${signature}`, secret, now)).toMatchObject({
      valid: false,
      reason: 'bad_signature',
    });
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BA' : 'AA');
    expect(verifyState(`${version}.${body}.${flipped}`, secret, now)).toMatchObject({
      valid: false,
      reason: 'bad_signature',
    });
    expect(verifyState(`${version}.${body}.${signature.slice(0, 10)}`, secret, now)).toMatchObject({
      valid: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    ['empty', ''],
    ['one part', 'abc'],
    ['another version', 'v2.e30.c2ln'],
    ['padding and symbols', 'v1.e30=.c2ln+/'],
  ])('refuses a malformed state (%s)', (_name, state) => {
    expect(verifyState(state, secret, now)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('refuses a correctly signed body that is not the expected JSON', () => {
    const sign = (body: string) =>
      `v1.${body}.${createHmac('sha256', secret).update(`v1.${body}`).digest('base64url')}`;
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    expect(verifyState(sign(encode('{"n":1,"e":2}')), secret, now)).toEqual({
      valid: false,
      reason: 'malformed',
    });
    expect(verifyState(sign(encode('not json')), secret, now)).toEqual({
      valid: false,
      reason: 'malformed',
    });
    expect(verifyState(sign(encode(`{"n":"x","e":${now + 1}}`)), secret, now).valid).toBe(true);
  });

  it('reports an expired state with its payload, so the authorization can be failed', () => {
    const nonce = newStateNonce();
    const state = signState({ nonce, expiresAt: now + STATE_TTL_MS }, secret);
    expect(verifyState(state, secret, now + STATE_TTL_MS - 1).valid).toBe(true);
    expect(verifyState(state, secret, now + STATE_TTL_MS)).toEqual({
      valid: false,
      reason: 'expired',
      payload: { nonce, expiresAt: now + STATE_TTL_MS },
    });
  });
});
