import { looksLikeCron, parseCron } from './cron.schedule';
import {
  DurationSchedule,
  looksLikeDuration,
  parseDuration,
  PRESET_DURATIONS,
} from './duration.schedule';
import { looksLikeRRule, parseRRule } from './rrule.schedule';
import {
  FREQUENCY_HELP,
  MIN_INTERVAL_MS,
  Schedule,
  ScheduleError,
  ScheduleKind,
} from './schedule.types';
import { DAY_MS, isValidTimeZone } from '../../common/zoned-time';

export { isValidTimeZone, ScheduleError };
export type { Schedule, ScheduleKind };

// Enough to catch sub-minute bursts; the year cap keeps sparse rules cheap to validate.
const SAMPLE_SIZE = 50;
const SAMPLE_SPAN_MS = 366 * DAY_MS;

/**
 * Parses and validates a follow-up frequency in a time zone; throws ScheduleError with a
 * user-facing message. anchorMs is the creation instant: presets and durations count from it,
 * and repeating schedules first fire strictly after it.
 */
export function parseSchedule(frequency: string, timeZone: string, anchorMs: number): Schedule {
  if (!Number.isFinite(anchorMs)) throw new RangeError('anchorMs must be a finite number');
  if (!isValidTimeZone(timeZone)) {
    throw new ScheduleError(
      'time_zone',
      `time_zone ${quote(timeZone)} is not an IANA time zone name such as Europe/Madrid, America/New_York or UTC`,
    );
  }
  const text = typeof frequency === 'string' ? frequency.trim() : '';
  const schedule = build(text, timeZone, anchorMs);
  if (schedule.kind !== 'once') assertFires(schedule);
  return schedule;
}

/**
 * A schedule that was validated when its follow-up was created: the dispatcher rebuilds it for
 * every run, so it skips parseSchedule's sampling of the first occurrences.
 */
export function loadStoredSchedule(
  frequency: string,
  timeZone: string,
  anchorMs: number,
): Schedule {
  return build(frequency.trim(), timeZone, anchorMs);
}

function build(text: string, timeZone: string, anchorMs: number): Schedule {
  const word = text.toLowerCase();
  if (word === 'once') return new OnceSchedule(anchorMs);
  const preset = PRESET_DURATIONS[word];
  if (preset) return new DurationSchedule('preset', timeZone, anchorMs, preset);
  if (looksLikeRRule(text)) return parseRRule(text, timeZone, anchorMs);
  if (looksLikeDuration(text)) {
    return new DurationSchedule('duration', timeZone, anchorMs, parseDuration(text));
  }
  if (looksLikeCron(text)) return parseCron(text, timeZone, anchorMs);
  throw new ScheduleError('frequency', FREQUENCY_HELP);
}

function assertFires(schedule: Schedule): void {
  const first = schedule.firstRun();
  if (first === null) {
    const why: Record<ScheduleKind, string> = {
      cron: 'no date matches the cron expression',
      rrule: 'the RRULE has no occurrence after the follow-up is created',
      duration: 'its first occurrence would be after the year 9999',
      preset: 'its first occurrence would be after the year 9999',
      once: '',
    };
    throw new ScheduleError('frequency', `frequency never fires: ${why[schedule.kind]}`);
  }
  let previous = first;
  for (let i = 1; i < SAMPLE_SIZE && previous - first < SAMPLE_SPAN_MS; i++) {
    const next = schedule.nextAfter(previous);
    if (next === null) break;
    if (next - previous < MIN_INTERVAL_MS) {
      throw new ScheduleError('frequency', 'frequency must not fire more often than once a minute');
    }
    previous = next;
  }
}

/** Fires once, at creation. */
class OnceSchedule implements Schedule {
  readonly kind = 'once';

  constructor(private readonly anchorMs: number) {}

  firstRun(): number {
    return this.anchorMs;
  }

  nextAfter(afterMs: number): number | null {
    return afterMs < this.anchorMs ? this.anchorMs : null;
  }

  occurrences(fromMs: number, count: number): number[] {
    return count >= 1 && this.anchorMs >= fromMs ? [this.anchorMs] : [];
  }
}

function quote(value: string): string {
  const text = String(value);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
