import type { IncomingMessage } from 'node:http';

/** Deeper JSON than any operation takes; deeper input overflowed the validators' recursion. */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** More keys than any object of any operation needs; see findUnacceptableValue. */
export const MAX_OBJECT_KEYS = 1000;

const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * One linear pass over a UTF-8 JSON text that skips string contents (no recursion, no parse): the
 * deepest nesting of brackets, and the byte offset of the first object with more than `maxKeys`
 * keys (its `:` counted at its own level), or -1. UTF-8 never uses ASCII bytes inside multi-byte
 * characters, so scanning bytes is exact. Stops at the first object too wide, or once deeper
 * than `maxDepth`. Counting keys here, before JSON.parse, keeps a body of 120,000 keys from
 * costing the event loop its parse (40 ms) and a walk of its keys.
 */
export function scanJsonStructure(
  text: Uint8Array,
  maxDepth = Infinity,
  maxKeys = Infinity,
): { depth: number; wideObjectAt: number } {
  const levels = Number.isFinite(maxDepth) ? maxDepth + 2 : 1024;
  const keys = new Uint32Array(levels);
  const openedAt = new Int32Array(levels);
  const isObject = new Uint8Array(levels);
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
        if (deepest > maxDepth || depth >= levels) return { depth: deepest, wideObjectAt: -1 };
      }
      keys[depth] = 0;
      openedAt[depth] = i;
      isObject[depth] = byte === OPEN_OBJECT ? 1 : 0;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    } else if (byte === COLON && isObject[depth] === 1 && ++keys[depth] > maxKeys) {
      return { depth: deepest, wideObjectAt: openedAt[depth] };
    }
  }
  return { depth: deepest, wideObjectAt: -1 };
}

/** The deepest nesting of brackets in a UTF-8 JSON text; see scanJsonStructure. */
export const jsonNestingDepth = (text: Uint8Array, limit = Infinity): number =>
  scanJsonStructure(text, limit).depth;

/**
 * The field path (`a.b[2]`, '' for the root) of the value that starts at byte `offset` of a JSON
 * text, by a second linear pass: only run for an error, so the first pass never builds paths.
 */
export function jsonPathAt(text: Uint8Array, offset: number): string {
  const frames: { isObject: boolean; step: string | number | undefined }[] = [];
  let stringStart = -1;
  let lastString: [number, number] | undefined;
  for (let i = 0; i < offset; i++) {
    const byte = text[i];
    if (stringStart >= 0) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) {
        lastString = [stringStart, i + 1];
        stringStart = -1;
      }
    } else if (byte === QUOTE) {
      stringStart = i;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      frames.push({ isObject: byte === OPEN_OBJECT, step: byte === OPEN_ARRAY ? 0 : undefined });
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      frames.pop();
    } else if (byte === COLON && lastString) {
      const frame = frames[frames.length - 1];
      if (frame?.isObject) frame.step = jsonString(text.subarray(...lastString));
    } else if (byte === COMMA) {
      const frame = frames[frames.length - 1];
      if (frame && !frame.isObject) frame.step = (frame.step as number) + 1;
    }
  }
  let location: Location | undefined;
  // The root is not a step; every enclosing container is, by its key or index.
  for (const frame of frames) {
    if (frame.step !== undefined) location = { parent: location, step: frame.step };
  }
  return location ? fieldPath(location, '') : '';
}

/** A JSON string token's value; its raw text when it is not valid JSON (the body may not be). */
function jsonString(token: Uint8Array): string {
  const raw = Buffer.from(token).toString('utf8');
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw.slice(1, -1);
  }
}

/** An error body-parser passes on with its `type`, for bodyParserErrors to render. */
class BodyRefused extends Error {
  constructor(
    readonly type: string,
    readonly field?: string,
  ) {
    super(type);
  }
}

/**
 * body-parser's `verify` hook: runs on the raw (inflated) body before JSON.parse. Refuses bodies
 * nested deeper than MAX_JSON_DEPTH, objects of more than MAX_OBJECT_KEYS keys (naming where),
 * and charsets other than UTF-8 (RFC 8259 §8.1), which the byte scan could not read.
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
  const { depth, wideObjectAt } = scanJsonStructure(body, MAX_JSON_DEPTH, MAX_OBJECT_KEYS);
  if (depth > MAX_JSON_DEPTH) throw new BodyRefused('entity.too.deep');
  if (wideObjectAt >= 0) {
    throw new BodyRefused('entity.too.wide', jsonPathAt(body, wideObjectAt) || 'body');
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

/** Why findUnacceptableValue refused a value, in the words of a field error. */
export type UnacceptableReason = 'nul' | 'lone_surrogate' | 'non_finite_number' | 'too_many_keys';

export const UNACCEPTABLE_MESSAGES: Record<UnacceptableReason, string> = {
  nul: 'must not contain NUL characters (\\u0000)',
  lone_surrogate: 'must not contain unpaired UTF-16 surrogates (such as \\ud800)',
  non_finite_number: 'must be a finite number (JSON numbers beyond ±1.8e308 are not)',
  too_many_keys: `must not have more than ${MAX_OBJECT_KEYS} keys`,
};

/** The problem's detail for each reason. */
export const UNACCEPTABLE_DETAILS: Record<UnacceptableReason, string> = {
  nul: 'The request contains a NUL character (\\u0000), which no field accepts.',
  lone_surrogate:
    'The request contains an unpaired UTF-16 surrogate (such as \\ud800), which no field accepts.',
  non_finite_number: 'The request contains a number too large to represent.',
  too_many_keys: 'An object in the request has more keys than any field accepts.',
};

/** A string PostgreSQL cannot store: NUL in any text, an unpaired surrogate in jsonb. */
function unstorableText(text: string): UnacceptableReason | undefined {
  if (text.includes('\u0000')) return 'nul';
  if (!text.isWellFormed()) return 'lone_surrogate';
  return undefined;
}

function unacceptableLeaf(value: unknown): UnacceptableReason | undefined {
  if (typeof value === 'string') return unstorableText(value);
  if (typeof value === 'number' && !Number.isFinite(value)) return 'non_finite_number';
  return undefined;
}

export interface UnacceptableValue {
  /** A field path in the form the validation errors use (`a.b[2]`); a bad key is escaped. */
  field: string;
  reason: UnacceptableReason;
}

/**
 * The first value (or object key) that no operation accepts, or undefined: text holding NUL or an
 * unpaired surrogate (PostgreSQL refuses both, so they would fail in SQL as a 500), a number that
 * JSON.parse read as Infinity (`1e400`, stored as null otherwise), and an object with more than
 * MAX_OBJECT_KEYS keys (class-transformer's handling of keys is quadratic in their count). One
 * iterative pass that builds a path only for the hit.
 */
export function findUnacceptableValue(value: unknown, root = ''): UnacceptableValue | undefined {
  const rootReason = unacceptableLeaf(value);
  if (rootReason) return { field: root, reason: rootReason };
  const pending: Array<[unknown, Location | undefined]> = [[value, undefined]];
  while (pending.length > 0) {
    const [current, location] = pending.pop() as [unknown, Location | undefined];
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        const item: unknown = current[i];
        const at = { parent: location, step: i };
        if (item !== null && typeof item === 'object') pending.push([item, at]);
        else {
          const reason = unacceptableLeaf(item);
          if (reason) return { field: fieldPath(at, root), reason };
        }
      }
    } else if (current !== null && typeof current === 'object') {
      const record = current as Record<string, unknown>;
      let keys = 0;
      for (const key in record) {
        if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
        if (++keys > MAX_OBJECT_KEYS) {
          return { field: fieldPath(location, root) || root, reason: 'too_many_keys' };
        }
        const at = { parent: location, step: key };
        const keyReason = unstorableText(key);
        if (keyReason) {
          // The key itself is the problem: escaped, so the answer stays valid UTF-8 JSON text.
          return { field: escapeUnstorable(fieldPath(at, root)), reason: keyReason };
        }
        const item = record[key];
        if (item !== null && typeof item === 'object') pending.push([item, at]);
        else {
          const reason = unacceptableLeaf(item);
          if (reason) return { field: fieldPath(at, root), reason };
        }
      }
    }
  }
  return undefined;
}

/** NUL and unpaired surrogates written as JSON escapes (`\\u0000`): text PostgreSQL can store. */
export function escapeUnstorable(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- NUL is what it escapes
    /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
