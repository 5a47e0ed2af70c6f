import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  KeyObject,
} from 'node:crypto';
import { pooledRandomBytes } from '../ids';

const VERSION = 'v1';
const IV_BYTES = 12;

/** A short, non-secret fingerprint of a key, stored with each ciphertext so keys can rotate. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export class SecretBoxError extends Error {}

/**
 * AES-256-GCM for secrets at rest (`api_key`, `access_token`). Ciphertext format:
 * `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts). New secrets use the current key; older
 * ones decrypt with whichever configured key their id names, so ENCRYPTION_KEY can rotate.
 * The associated data binds a ciphertext to its row and column: a value copied elsewhere fails.
 */
export class SecretBox {
  /**
   * Prepared once: Node 24 checks a raw Buffer key for a KeyObject by a throw it catches, about 10
   * µs on every cipher (measured); a KeyObject skips that, and keeps the key off the JS heap.
   */
  private readonly keys = new Map<string, KeyObject>();
  private readonly currentKeyId: string;

  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    for (const key of [currentKey, ...previousKeys]) {
      if (key.length !== 32) throw new SecretBoxError('encryption keys must be 32 bytes');
      this.keys.set(keyId(key), createSecretKey(key));
    }
    this.currentKeyId = keyId(currentKey);
  }

  encrypt(plaintext: string, associatedData: string): string {
    const key = this.keys.get(this.currentKeyId) as KeyObject;
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, this.currentKeyId, iv, tag, body]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  decrypt(sealed: string, associatedData: string): string {
    const [version, id, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || body === undefined) {
      throw new SecretBoxError('not a sealed secret');
    }
    const key = this.keys.get(id);
    if (!key) throw new SecretBoxError(`no configured key has id ${id}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretBoxError('secret failed authentication');
    }
  }
}
