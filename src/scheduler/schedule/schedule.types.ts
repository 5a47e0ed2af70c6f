export type ScheduleKind = 'once' | 'preset' | 'cron' | 'rrule' | 'duration';

/** A user-facing validation failure of the follow-up `frequency` or `time_zone` field. */
export class ScheduleError extends Error {
  constructor(
    readonly field: 'frequency' | 'time_zone',
    message: string,
  ) {
    super(message);
    this.name = 'ScheduleError';
  }
}

export interface Schedule {
  readonly kind: ScheduleKind;
  /**
   * The first instant (ms) the schedule fires for something created at anchorMs: anchorMs itself
   * for `once`, else the first occurrence strictly after anchorMs. null if it never fires.
   */
  firstRun(): number | null;
  /**
   * The first occurrence strictly after afterMs (ms since epoch), or null when nothing is left.
   * For `once`: null when afterMs >= anchor, else anchor.
   */
  nextAfter(afterMs: number): number | null;
  /**
   * Up to count occurrences strictly after fromMs, strictly increasing. For `once`: [anchor] when
   * anchor >= fromMs, else [].
   */
  occurrences(fromMs: number, count: number): number[];
}

/** Nothing may fire more often than this. */
export const MIN_INTERVAL_MS = 60_000;

export const FREQUENCY_HELP =
  'frequency must be once, hourly, daily, weekly, monthly, a 5-field cron expression, an RFC 5545 RRULE or an ISO 8601 duration';

/** Collects up to count results of nextAfter, each strictly after the previous. */
export function collectOccurrences(
  nextAfter: (afterMs: number) => number | null,
  fromMs: number,
  count: number,
): number[] {
  const result: number[] = [];
  const limit = Number.isFinite(count) ? Math.max(0, Math.floor(count)) : 0;
  let cursor = fromMs;
  while (result.length < limit) {
    const next = nextAfter(cursor);
    if (next === null) break;
    result.push(next);
    cursor = next;
  }
  return result;
}
