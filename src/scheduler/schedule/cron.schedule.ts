import { Cron } from 'croner';

import { ScheduleError } from './schedule.types';
import { WallClockSchedule } from './wall-clock.schedule';

/** Whether the text is shaped like a cron expression (its first field is a minute/second list). */
export function looksLikeCron(text: string): boolean {
  const fields = text.split(/\s+/);
  return fields.length >= 2 && /^[0-9*?,/-]+$/.test(fields[0]);
}

/**
 * A 5-field cron expression evaluated on wall-clock time in the zone. croner runs at a fixed UTC
 * offset of 0 on wall values (fast, no DST of its own); DST is applied when mapping to instants.
 */
export function parseCron(text: string, timeZone: string, anchorMs: number): WallClockSchedule {
  const fields = text.split(/\s+/);
  if (fields.length !== 5) {
    throw new ScheduleError(
      'frequency',
      `a cron frequency needs exactly 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}; seconds and years are not supported`,
    );
  }
  let cron: Cron;
  try {
    cron = new Cron(fields.join(' '), { mode: '5-part', utcOffset: 0 });
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : '';
    throw new ScheduleError(
      'frequency',
      `frequency is not a valid 5-field cron expression${detail ? `: ${detail}` : ''}`,
    );
  }
  return new WallClockSchedule('cron', timeZone, anchorMs, (afterWall) => {
    const next = cron.nextRun(new Date(afterWall));
    return next ? next.getTime() : null;
  });
}
