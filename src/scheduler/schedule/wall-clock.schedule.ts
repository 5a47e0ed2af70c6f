import { collectOccurrences, Schedule } from './schedule.types';
import { DAY_MS, HOUR_MS, MAX_TIME_MS, offsetAt, toInstant } from '../../common/zoned-time';

/**
 * The first matching wall-clock time strictly after afterWall (both "wall" values, see
 * zoned-time.ts), or null when the rule has no more matches.
 */
export type NextWall = (afterWall: number) => number | null;

// Safety net only: a normal query looks at a handful of candidates.
const MAX_CANDIDATES = 100_000;

/** A cron or RRULE schedule: a rule over local wall-clock times, mapped to instants in a zone. */
export class WallClockSchedule implements Schedule {
  private readonly first: number | null;

  constructor(
    readonly kind: 'cron' | 'rrule',
    private readonly timeZone: string,
    private readonly anchorMs: number,
    private readonly nextWall: NextWall,
    /** Instants after this never fire (an RRULE UNTIL given in UTC). */
    private readonly untilMs = Infinity,
  ) {
    this.first = this.nextAfter(anchorMs);
  }

  firstRun(): number | null {
    return this.first;
  }

  nextAfter(afterMs: number): number | null {
    // Repeating schedules never fire at or before their creation.
    const from = Math.max(afterMs, this.anchorMs);
    const next = nextInstantAfter(this.timeZone, from, this.nextWall);
    return next !== null && next <= this.untilMs ? next : null;
  }

  occurrences(fromMs: number, count: number): number[] {
    return collectOccurrences((t) => this.nextAfter(t), fromMs, count);
  }
}

/**
 * The earliest instant after t that some matching wall-clock time maps to. Walls map to instants
 * almost monotonically; DST makes two exceptions, handled here:
 * - a wall skipped by a forward change maps past the gap, so it can read earlier than wall(t)
 *   and still be after t: start the search back by the size of any recent forward change;
 * - for the same reason a later wall can map to an earlier instant than the best found so far:
 *   keep reading candidates until they are past best's wall plus any nearby offset change.
 * Several walls landing on one instant collapse into one result because only instants > t count.
 */
export function nextInstantAfter(timeZone: string, t: number, nextWall: NextWall): number | null {
  if (!(t < MAX_TIME_MS)) return null;
  const offset = offsetAt(timeZone, t);
  const lookback = Math.max(
    0,
    offset - offsetAt(timeZone, t - 3 * HOUR_MS),
    offset - offsetAt(timeZone, t - 25 * HOUR_MS),
  );
  let cursor = t + offset - lookback - 1;
  let best: number | null = null;
  let stopWall = Infinity;
  for (let i = 0; i < MAX_CANDIDATES; i++) {
    const wall = nextWall(cursor);
    if (wall === null || wall > stopWall || wall > MAX_TIME_MS) break;
    const instant = toInstant(timeZone, wall);
    if (instant > t && (best === null || instant < best)) {
      best = instant;
      stopWall =
        best +
        Math.max(
          offsetAt(timeZone, best - DAY_MS),
          offsetAt(timeZone, best),
          offsetAt(timeZone, best + DAY_MS),
        );
    }
    cursor = wall;
    // Further candidates are strictly later walls; saves a rule lookup in the common case.
    if (cursor >= stopWall) break;
  }
  return best;
}
