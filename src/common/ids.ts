import { randomBytes, randomFillSync } from 'node:crypto';

let lastMs = -1;
let sequence = 0;

/**
 * Random bytes for ids, tokens and IVs, drawn from the system's generator 4 KiB at a time, as
 * Node's randomUUID does: a `randomBytes` call each (about 2 µs alone, more under load) was a
 * measurable share of creating a resource.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomFromPool(bytes: number): Buffer {
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += bytes;
  return pool.subarray(poolOffset - bytes, poolOffset);
}

/** `bytes` random bytes from the pool, copied (the pool is overwritten once used up). */
export function pooledRandomBytes(bytes: number): Buffer {
  // The pool serves small draws; a large one goes to the generator itself.
  return bytes > POOL_BYTES / 16 ? randomBytes(bytes) : Buffer.from(randomFromPool(bytes));
}

/**
 * A UUID v7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit sequence (method 1: monotonic within
 * a millisecond in this process), then randomness, so ids sort by creation order.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  let ms = Math.max(nowMs, lastMs);
  if (ms === lastMs) {
    sequence++;
    if (sequence > 0xfff) {
      ms++;
      sequence = 0;
    }
  } else {
    sequence = randomFromPool(2).readUInt16BE(0) & 0x7ff; // leave room to count up
  }
  lastMs = ms;
  const bytes = pooledRandomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths are compared as UUIDs; anything else cannot name a resource. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** A verification token for Meta's webhook handshake: 43 URL-safe characters (256 bits). */
export function newVerificationToken(): string {
  return pooledRandomBytes(32).toString('base64url');
}
