import { JsonValue } from '../../common/json';

/** What an execution record keeps of its input, and of its output, serialized (UTF-8 bytes). */
export const MAX_STORED_JSON_BYTES = 64 * 1024;

/** Deeper than this, a value is replaced by a marker when shrinking (tool output can be any JSON). */
const MAX_SHRINK_DEPTH = 64;
const CUT_MARK = '…';

interface Limits {
  stringChars: number;
  items: number;
}

function cutString(text: string, chars: number): string {
  if (text.length <= chars) return text;
  let end = chars;
  // Never leave half of a surrogate pair behind.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}${CUT_MARK}`;
}

function shrink(value: JsonValue, limits: Limits, depth: number): JsonValue {
  if (typeof value === 'string') return cutString(value, limits.stringChars);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_SHRINK_DEPTH) return CUT_MARK;
  if (Array.isArray(value)) {
    return value.slice(0, limits.items).map((item) => shrink(item, limits, depth + 1));
  }
  const kept: Record<string, JsonValue> = {};
  let count = 0;
  for (const [key, item] of Object.entries(value)) {
    if (count++ >= limits.items) break;
    kept[cutString(key, limits.stringChars)] = shrink(item, limits, depth + 1);
  }
  return kept;
}

/**
 * A value as JSON text of at most `maxBytes`: unchanged when it fits; otherwise with long strings
 * cut (ending in "…") and arrays and objects cut to their first entries, the limits halved until
 * the text fits. The shape stays (an object stays an object), so records still read as JSON; the
 * caller flags the record as truncated. Each round is linear, and there are at most ~20 rounds.
 */
export function boundedJson(
  value: JsonValue,
  maxBytes = MAX_STORED_JSON_BYTES,
): { json: string; truncated: boolean } {
  const whole = JSON.stringify(value);
  if (Buffer.byteLength(whole) <= maxBytes) return { json: whole, truncated: false };
  const limits: Limits = { stringChars: Math.floor(maxBytes / 4), items: 1_000 };
  for (;;) {
    const json = JSON.stringify(shrink(value, limits, 0));
    if (Buffer.byteLength(json) <= maxBytes || (limits.stringChars === 0 && limits.items === 0)) {
      return { json, truncated: true };
    }
    limits.stringChars = Math.floor(limits.stringChars / 2);
    limits.items = Math.floor(limits.items / 2);
  }
}
