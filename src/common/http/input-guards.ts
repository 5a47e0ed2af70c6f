import type { IncomingMessage } from 'node:http';

/** Deeper JSON than any operation takes; deeper input overflowed the validators' recursion. */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of brackets in a UTF-8 JSON text, by one linear pass that skips string
 * contents (no recursion, no parse). UTF-8 never uses ASCII bytes inside multi-byte characters,
 * so scanning bytes is exact. Stops counting once past `limit`.
 */
export function jsonNestingDepth(text: Uint8Array, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
  return deepest;
}

/** An error body-parser passes on with its `type`, for bodyParserErrors to render. */
class BodyRefused extends Error {
  constructor(readonly type: string) {
    super(type);
  }
}

/**
 * body-parser's `verify` hook: runs on the raw (inflated) body before JSON.parse. Refuses bodies
 * nested deeper than MAX_JSON_DEPTH, and charsets other than UTF-8 (RFC 8259 §8.1), which the byte
 * scan could not read.
 */
export function verifyJsonBody(
  _request: IncomingMessage,
  _response: unknown,
  body: Buffer,
  encoding: string,
): void {
  if (encoding.toLowerCase().replace('-', '') !== 'utf8') {
    throw new BodyRefused('charset.unsupported');
  }
  if (jsonNestingDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    throw new BodyRefused('entity.too.deep');
  }
}

/** Where a value sits in the body: built into a field path only when a NUL is found there. */
interface Location {
  parent: Location | undefined;
  step: string | number;
}

function fieldPath(location: Location | undefined, root: string): string {
  const steps: Array<string | number> = [];
  for (let at = location; at; at = at.parent) steps.push(at.step);
  return steps.reduceRight<string>(
    (path, step) =>
      typeof step === 'number' ? `${path}[${step}]` : path ? `${path}.${step}` : step,
    root,
  );
}

const hasNul = (text: string) => text.includes('\u0000');

/**
 * The first string (value or object key) holding a NUL character, as a field path in the form the
 * validation errors use (`a.b[2]`), or undefined. PostgreSQL cannot store NUL in text, so such
 * input is refused at the edge rather than failing in SQL. Iterative, and it builds a path only
 * for the hit, so 40,000 keys cost one pass.
 */
export function findNulCharacter(value: unknown, root = ''): string | undefined {
  const pending: Array<[unknown, Location | undefined]> = [[value, undefined]];
  while (pending.length > 0) {
    const [current, location] = pending.pop() as [unknown, Location | undefined];
    if (typeof current === 'string') {
      if (hasNul(current)) return fieldPath(location, root);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        const item: unknown = current[i];
        if (item !== null && typeof item === 'object')
          pending.push([item, { parent: location, step: i }]);
        else if (typeof item === 'string' && hasNul(item))
          return fieldPath({ parent: location, step: i }, root);
      }
    } else if (current !== null && typeof current === 'object') {
      const record = current as Record<string, unknown>;
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
        if (hasNul(key))
          return JSON.stringify(fieldPath({ parent: location, step: key }, root)).slice(1, -1);
        const item = record[key];
        if (item !== null && typeof item === 'object')
          pending.push([item, { parent: location, step: key }]);
        else if (typeof item === 'string' && hasNul(item))
          return fieldPath({ parent: location, step: key }, root);
      }
    }
  }
  return undefined;
}
