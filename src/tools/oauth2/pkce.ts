import { createHash, randomBytes } from 'node:crypto';

/**
 * PKCE (RFC 7636) with S256: a verifier of 43 URL-safe characters (256 random bits), and its
 * challenge, the base64url SHA-256 of the verifier. `plain` is never used.
 */
export function newCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

export function codeChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
