import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a user has to finish an authorization. */
export const STATE_TTL_MS = 10 * 60 * 1000;

export interface StatePayload {
  /** The nonce of the server-side row that holds the PKCE verifier; consumed once. */
  nonce: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export type StateVerification =
  | { valid: true; payload: StatePayload }
  /** Signed by us, but too late: the nonce still tells which authorization it was. */
  | { valid: false; reason: 'expired'; payload: StatePayload }
  | { valid: false; reason: 'malformed' | 'bad_signature' };

const VERSION = 'v1';

const mac = (secret: Buffer, body: string): Buffer =>
  createHmac('sha256', secret).update(`${VERSION}.${body}`).digest();

export const newStateNonce = (): string => randomBytes(32).toString('base64url');

/**
 * The OAuth2 `state`: `v1.<payload>.<HMAC-SHA256>` (base64url parts). The signature proves that we
 * issued it; single use comes from the nonce row, which the callback deletes atomically.
 */
export function signState(payload: StatePayload, secret: Buffer): string {
  const body = Buffer.from(JSON.stringify({ n: payload.nonce, e: payload.expiresAt })).toString(
    'base64url',
  );
  return `${VERSION}.${body}.${mac(secret, body).toString('base64url')}`;
}

export function verifyState(state: string, secret: Buffer, now: number): StateVerification {
  const parts = state.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION || !/^[A-Za-z0-9_-]+$/.test(parts[2] ?? '')) {
    return { valid: false, reason: 'malformed' };
  }
  const [, body, signature] = parts;
  const expected = mac(secret, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { valid: false, reason: 'bad_signature' };
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { valid: false, reason: 'malformed' };
  }
  const { n, e } = (decoded ?? {}) as { n?: unknown; e?: unknown };
  if (typeof n !== 'string' || typeof e !== 'number') return { valid: false, reason: 'malformed' };
  const payload = { nonce: n, expiresAt: e };
  return now < e ? { valid: true, payload } : { valid: false, reason: 'expired', payload };
}
