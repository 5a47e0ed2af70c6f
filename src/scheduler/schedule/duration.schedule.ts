import { collectOccurrences, MIN_INTERVAL_MS, Schedule, ScheduleError } from './schedule.types';
import {
  DAY_MS,
  HOUR_MS,
  MAX_TIME_MS,
  MINUTE_MS,
  toInstant,
  toWall,
  wallFromFields,
} from '../../common/zoned-time';

/** Calendar parts keep the wall-clock time across DST; timeMs is exact elapsed time. */
export interface DurationParts {
  readonly months: number;
  readonly days: number;
  readonly timeMs: number;
}

export const PRESET_DURATIONS: Readonly<Record<string, DurationParts>> = {
  hourly: { months: 0, days: 0, timeMs: HOUR_MS },
  daily: { months: 0, days: 1, timeMs: 0 },
  weekly: { months: 0, days: 7, timeMs: 0 },
  monthly: { months: 1, days: 0, timeMs: 0 },
};

// Gregorian average, only to guess which occurrence is near an instant.
const AVERAGE_MONTH_MS = (146_097 / 4800) * DAY_MS;

const DURATION =
  /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Whether the text is shaped like an ISO 8601 duration, valid or not. */
export function looksLikeDuration(text: string): boolean {
  return /^[+-]?P[\dYMWDTHS.,]*$/i.test(text);
}

export function parseDuration(text: string): DurationParts {
  const upper = text.toUpperCase();
  const invalid = (why: string) =>
    new ScheduleError('frequency', `frequency is not a valid ISO 8601 duration: ${why}`);
  if (upper.startsWith('-')) throw invalid('it must be positive');
  if (/[.,]/.test(upper)) throw invalid('use whole numbers (PT90M rather than PT1.5H)');
  const match = DURATION.exec(upper);
  if (!match || upper === 'P' || upper.endsWith('T')) {
    throw invalid('expected a form like P1D, PT6H, P1W, P1M or P1DT12H');
  }
  const [years, months, weeks, days, hours, minutes, seconds] = match
    .slice(1)
    .map((value) => (value === undefined ? 0 : Number(value)));
  const parts: DurationParts = {
    months: years * 12 + months,
    days: weeks * 7 + days,
    timeMs: hours * HOUR_MS + minutes * MINUTE_MS + seconds * 1000,
  };
  if (parts.months === 0 && parts.days === 0 && parts.timeMs === 0) {
    throw invalid('it must be longer than zero');
  }
  if (parts.months === 0 && parts.days === 0 && parts.timeMs < MIN_INTERVAL_MS) {
    throw new ScheduleError('frequency', 'frequency must not fire more often than once a minute');
  }
  return parts;
}

/**
 * Fires every `parts` from the anchor. Occurrence k is computed from the anchor itself
 * (anchorWall + k * calendar parts, then + k * time), so month clamping never drifts:
 * Jan 31 -> Feb 28 -> Mar 31.
 */
export class DurationSchedule implements Schedule {
  private readonly anchorWall: number;
  private readonly approxPeriodMs: number;

  constructor(
    readonly kind: 'preset' | 'duration',
    private readonly timeZone: string,
    private readonly anchorMs: number,
    private readonly parts: DurationParts,
  ) {
    this.anchorWall = toWall(timeZone, anchorMs);
    this.approxPeriodMs = parts.months * AVERAGE_MONTH_MS + parts.days * DAY_MS + parts.timeMs;
  }

  firstRun(): number | null {
    return this.nextAfter(this.anchorMs);
  }

  nextAfter(afterMs: number): number | null {
    const from = Math.max(afterMs, this.anchorMs);
    if (!(from < MAX_TIME_MS)) return null;
    // Guess k from the average period, then step: occurrences only grow with k.
    let k = Math.max(1, Math.floor((from - this.anchorMs) / this.approxPeriodMs));
    while (k > 1 && this.occurrence(k - 1) > from) k--;
    for (;;) {
      const instant = this.occurrence(k);
      if (Number.isNaN(instant)) return null;
      if (instant > from) return instant;
      k++;
    }
  }

  occurrences(fromMs: number, count: number): number[] {
    return collectOccurrences((t) => this.nextAfter(t), fromMs, count);
  }

  /** The k-th occurrence (k >= 1), NaN past the supported range. */
  private occurrence(k: number): number {
    const { months, days, timeMs } = this.parts;
    if (months === 0 && days === 0) {
      const instant = this.anchorMs + k * timeMs;
      return instant <= MAX_TIME_MS ? instant : Number.NaN;
    }
    const wall = addCalendar(this.anchorWall, k * months, k * days);
    if (!(wall <= MAX_TIME_MS)) return Number.NaN;
    return toInstant(this.timeZone, wall) + k * timeMs;
  }
}

/** Adds months (day of month clamped to the target month's length), then days, to a wall time. */
export function addCalendar(wall: number, months: number, days: number): number {
  const date = new Date(wall);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  const timeOfDay = wall - wallFromFields(year, month + 1, day);
  const targetMonth = month + months;
  const targetYear = year + Math.floor(targetMonth / 12);
  const monthIndex = targetMonth - Math.floor(targetMonth / 12) * 12;
  const lastDay = new Date(wallFromFields(targetYear, monthIndex + 2, 0)).getUTCDate();
  return (
    wallFromFields(targetYear, monthIndex + 1, Math.min(day, lastDay)) + days * DAY_MS + timeOfDay
  );
}
