import { randomBytes } from 'node:crypto';
import { keyId, SecretBox, SecretBoxError } from './secret-box';

describe('SecretBox', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);

  it('round-trips a secret and never stores the plaintext', () => {
    const sealed = box.encrypt('EAAG-secret-token', 'whatsapp_channels:1:access_token');
    expect(sealed).not.toContain('EAAG-secret-token');
    expect(sealed.split('.')).toHaveLength(5);
    expect(sealed.split('.')[1]).toBe(keyId(key));
    expect(box.decrypt(sealed, 'whatsapp_channels:1:access_token')).toBe('EAAG-secret-token');
  });

  it('uses a fresh IV for every encryption', () => {
    expect(box.encrypt('same', 'ad')).not.toBe(box.encrypt('same', 'ad'));
  });

  it('refuses a ciphertext moved to another row (associated data)', () => {
    const sealed = box.encrypt('secret', 'tools:1:api_key');
    expect(() => box.decrypt(sealed, 'tools:2:api_key')).toThrow(SecretBoxError);
  });

  it('refuses a tampered ciphertext', () => {
    const parts = box.encrypt('secret', 'ad').split('.');
    const body = Buffer.from(parts[4], 'base64url');
    body[0] ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => box.decrypt(parts.join('.'), 'ad')).toThrow('secret failed authentication');
  });

  it('decrypts secrets sealed under a previous key after rotation', () => {
    const oldKey = randomBytes(32);
    const sealedWithOld = new SecretBox(oldKey).encrypt('legacy', 'ad');
    const rotated = new SecretBox(randomBytes(32), [oldKey]);
    expect(rotated.decrypt(sealedWithOld, 'ad')).toBe('legacy');
    expect(rotated.encrypt('new', 'ad').split('.')[1]).not.toBe(sealedWithOld.split('.')[1]);
  });

  it('names a missing key instead of failing obscurely', () => {
    const sealed = new SecretBox(randomBytes(32)).encrypt('x', 'ad');
    expect(() => box.decrypt(sealed, 'ad')).toThrow(/no configured key has id/);
  });

  it('rejects garbage and keys of the wrong length', () => {
    expect(() => box.decrypt('plaintext', 'ad')).toThrow('not a sealed secret');
    expect(() => new SecretBox(randomBytes(16))).toThrow(SecretBoxError);
  });
});
