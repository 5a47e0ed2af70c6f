/**
 * UTC offsets of IANA time zones from Intl alone, for the Time toolkit. (The scheduler has its own
 * zone arithmetic; Tools may not import Scheduler, and this needs only a fraction of it.)
 *
 * A "wall" value is a local date-time written as milliseconds since the epoch as if the zone
 * were UTC, so that calendar fields come from Date's UTC getters.
 */

const DAY_MS = 86_400_000;
// Area/Location words only: rules out "+02:00" and similar that some Intl builds take as zones.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const formatters = new Map<string, Intl.DateTimeFormat>();

function offsetFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * The zone as the caller spelled it when Intl knows it, else undefined. Not Intl's own spelling:
 * ICU canonicalizes to legacy names (Asia/Kolkata becomes Asia/Calcutta).
 */
export function knownTimeZone(name: string): string | undefined {
  if (name.length > 64 || !IANA_NAME.test(name)) return undefined;
  try {
    offsetFormatter(name);
    return name;
  } catch {
    return undefined;
  }
}

/** Offset (wall - instant) in force at the instant, from Intl's "GMT+05:30" form. */
export function offsetAt(timeZone: string, instantMs: number): number {
  const name =
    offsetFormatter(timeZone)
      .formatToParts(instantMs)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(name);
  if (!match) return 0;
  const [, sign, hours, minutes, seconds = '0'] = match;
  const ms = (Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds)) * 1000;
  return sign === '-' ? -ms : ms;
}

/**
 * The instant a wall-clock time denotes in the zone. A time that a backward change repeats maps
 * to its earlier instant; a time that a forward change skips moves forward by the gap's length
 * (02:30 in a 02:00->03:00 gap is 03:30), as java.time and zoneinfo do and the scheduler does.
 */
export function instantAt(timeZone: string, wallMs: number): number {
  const offsets = new Set([
    offsetAt(timeZone, wallMs - DAY_MS),
    offsetAt(timeZone, wallMs),
    offsetAt(timeZone, wallMs + DAY_MS),
  ]);
  let earliest = Number.NaN;
  let largest = -Infinity;
  for (const offset of offsets) {
    largest = Math.max(largest, offset);
    const instant = wallMs - offset;
    if (offsetAt(timeZone, instant) === offset && !(instant >= earliest)) earliest = instant;
  }
  if (!Number.isNaN(earliest)) return earliest;
  return wallMs - offsetAt(timeZone, wallMs - largest);
}

/** `+05:30`, `-03:00`, `+00:00`. */
export function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** The instant as ISO 8601 local time in the zone, with its offset: `2025-03-14T11:30:00-04:00`. */
export function describeInstant(
  timeZone: string,
  instantMs: number,
): { datetime: string; utcOffset: string; dayOfWeek: string } {
  const offset = offsetAt(timeZone, instantMs);
  const wall = new Date(instantMs + offset);
  const utcOffset = formatOffset(offset);
  return {
    datetime: `${wall.toISOString().slice(0, 19)}${utcOffset}`,
    utcOffset,
    dayOfWeek: DAYS[wall.getUTCDay()],
  };
}
