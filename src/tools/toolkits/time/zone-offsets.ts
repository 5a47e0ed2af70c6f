/**
 * Time-zone helpers of the Time toolkit, on the zone arithmetic the scheduler uses too
 * (src/common/zoned-time.ts). A "wall" value is a local date-time written as milliseconds since
 * the epoch as if the zone were UTC.
 */
import { isValidTimeZone, offsetAt, toInstant } from '../../../common/zoned-time';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * The zone as the caller spelled it when Intl knows it, else undefined. Not Intl's own spelling:
 * ICU canonicalizes to legacy names (Asia/Kolkata becomes Asia/Calcutta).
 */
export function knownTimeZone(name: string): string | undefined {
  return isValidTimeZone(name) ? name : undefined;
}

/**
 * The instant a wall-clock time denotes in the zone, with the scheduler's DST rules (a repeated
 * time maps to its earlier instant, a skipped one moves forward by the gap).
 */
export const instantAt = toInstant;

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
