/**
 * Wall-clock <-> instant conversion for IANA time zones, on top of Intl only.
 *
 * A "wall" value is a local date-time encoded as milliseconds since the epoch as if the zone were
 * UTC (Date.UTC(year, month, day, ...)); that keeps calendar arithmetic plain integer maths.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** Instants/walls past the end of year 9999 are treated as "never" (Intl and Date stop nearby). */
export const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

// Offsets per zone and UTC day (a few KB per zone-year); cleared when full to bound memory.
const OFFSET_CACHE_LIMIT = 100_000;
const GREGORIAN_400Y_MS = 146_097 * 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
/** One offset for the whole day, or the instant that day's transition happens. */
type DayOffsets = number | { readonly at: number; readonly before: number; readonly after: number };
const offsetCaches = new Map<string, Map<number, DayOffsets>>();

// IANA names are Area/Location words; this rules out offsets such as +02:00 that Intl may take.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

export function isValidTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string' || timeZone.length > 64 || !IANA_NAME.test(timeZone)) {
    return false;
  }
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Date.UTC without its 0-99 => 1900-1999 year mapping; fields may overflow like Date.UTC's. */
export function wallFromFields(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  millisecond = 0,
): number {
  if (year >= 0 && year < 100) {
    // 400 Gregorian years are a whole number of days, so shift out of the mapped range and back.
    return (
      Date.UTC(year + 400, month - 1, day, hour, minute, second, millisecond) - GREGORIAN_400Y_MS
    );
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
}

/** UTC offset (wall - instant, in ms) in force at the instant. */
export function offsetAt(timeZone: string, instantMs: number): number {
  const day = Math.floor(instantMs / DAY_MS);
  let cache = offsetCaches.get(timeZone);
  if (!cache) {
    cache = new Map();
    offsetCaches.set(timeZone, cache);
  }
  let entry = cache.get(day);
  if (entry === undefined) {
    entry = dayOffsets(timeZone, day * DAY_MS);
    if (cache.size >= OFFSET_CACHE_LIMIT) cache.clear();
    cache.set(day, entry);
  }
  if (typeof entry === 'number') return entry;
  return instantMs < entry.at ? entry.before : entry.after;
}

/**
 * The offsets of one UTC day. A zone changes offset at most once a day, so equal offsets at both
 * ends mean one offset all day; otherwise bisect to the second the change happens.
 */
function dayOffsets(timeZone: string, dayStart: number): DayOffsets {
  const before = rawOffset(timeZone, dayStart);
  const after = rawOffset(timeZone, dayStart + DAY_MS - 1000);
  if (before === after) return before;
  let low = dayStart;
  let high = dayStart + DAY_MS - 1000;
  while (high - low > 1000) {
    const mid = low + Math.floor((high - low) / 2000) * 1000;
    if (rawOffset(timeZone, mid) === before) low = mid;
    else high = mid;
  }
  return { at: high, before, after };
}

/** The wall-clock time shown in the zone at the instant. */
export function toWall(timeZone: string, instantMs: number): number {
  return instantMs + offsetAt(timeZone, instantMs);
}

/**
 * The instant a wall-clock time denotes in the zone. A time repeated by a backward change maps to
 * its earlier instant; a time skipped by a forward change is moved forward by the gap's length
 * (02:30 in a 02:00->03:00 gap becomes 03:30), as RFC 5545, java.time and zoneinfo do.
 */
export function toInstant(timeZone: string, wallMs: number): number {
  // Offsets a day either side cover the states before and after any transition near this wall.
  const offsets = new Set([
    offsetAt(timeZone, wallMs - DAY_MS),
    offsetAt(timeZone, wallMs),
    offsetAt(timeZone, wallMs + DAY_MS),
  ]);
  let earliest = Number.NaN;
  let largestOffset = -Infinity;
  for (const offset of offsets) {
    largestOffset = Math.max(largestOffset, offset);
    const instant = wallMs - offset;
    if (offsetAt(timeZone, instant) === offset && !(instant >= earliest)) earliest = instant;
  }
  if (!Number.isNaN(earliest)) return earliest;
  // In a gap: read the wall with the offset in force just before the gap, which lands past it.
  const offsetBefore = offsetAt(timeZone, wallMs - largestOffset);
  return wallMs - offsetBefore;
}

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function rawOffset(timeZone: string, instantMs: number): number {
  const fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(timeZone).formatToParts(instantMs)) {
    if (part.type in fields) fields[part.type as keyof typeof fields] = Number(part.value);
  }
  // Some ICU builds print midnight as 24 even with h23.
  if (fields.hour === 24) fields.hour = 0;
  const wall = wallFromFields(
    fields.year,
    fields.month,
    fields.day,
    fields.hour,
    fields.minute,
    fields.second,
  );
  return wall - Math.floor(instantMs / 1000) * 1000;
}
