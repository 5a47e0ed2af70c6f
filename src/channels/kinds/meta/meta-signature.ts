import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/** The header's shape alone: a request without it is refused before any look-up. */
export const isWellFormedSignature = (header: string | undefined): boolean =>
  header !== undefined && SIGNATURE.test(header.trim());

/**
 * Meta's `X-Hub-Signature-256: sha256=<hex>`: the HMAC-SHA256 of the raw body with the app secret.
 * Any configured secret may match (rotation); each comparison takes constant time. No secret
 * configured verifies nothing.
 */
export function isSignedByMeta(
  rawBody: Buffer,
  header: string | undefined,
  secrets: readonly string[],
): boolean {
  const match = header === undefined ? null : SIGNATURE.exec(header.trim());
  if (!match) return false;
  const given = Buffer.from(match[1], 'hex');
  let valid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    // Every secret is compared, so the time taken does not tell which one (if any) matched.
    if (timingSafeEqual(expected, given)) valid = true;
  }
  return valid;
}

/** What tests and docs sign with: the header value Meta would send for this body. */
export function metaSignature(rawBody: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}
