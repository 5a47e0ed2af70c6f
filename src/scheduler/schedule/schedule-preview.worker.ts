import { toWall } from '../../common/zoned-time';
import type { ToolExecutor } from '../../tools';
import { parseSchedule } from './schedule.parser';
import { ScheduleError } from './schedule.types';

/** This file, as a worker module of WorkerPool (`.js` from dist/, `.ts` under ts-node/jest). */
export const SCHEDULE_PREVIEW_MODULE = __filename;
export const SCHEDULE_PREVIEW_TASK = 'Scheduler.PreviewSchedule';

/** What the main thread hands over: a checked query, `from` filled in from its clock. */
export interface SchedulePreviewTask {
  frequency: string;
  time_zone: string;
  count: number;
  from: number;
}

/** The occurrences with their local times, or the field error that makes the query invalid. */
export type SchedulePreviewResult =
  { occurrences: number[]; local_times: string[] } | { error: { field: string; message: string } };

/**
 * Expanding a schedule costs with how rarely it fires (a leap-day rule walks years per
 * occurrence): it runs in a worker thread, for GET /v1/scheduler/preview and the PreviewSchedule
 * tool alike. A grammar error is an answer, not a failure: each caller words it its own way.
 */
export const WORKER_TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  [SCHEDULE_PREVIEW_TASK]: {
    async execute(input): Promise<SchedulePreviewResult> {
      const task = input as unknown as SchedulePreviewTask;
      let occurrences: number[];
      try {
        const schedule = parseSchedule(task.frequency, task.time_zone, task.from);
        occurrences = schedule.occurrences(task.from, task.count);
      } catch (error) {
        if (!(error instanceof ScheduleError)) throw error;
        return { error: { field: error.field, message: error.message } };
      }
      const local_times = occurrences.map((at) => localTime(task.time_zone, at));
      return { occurrences, local_times };
    },
  },
};

/** `2025-03-14T10:00:00+01:00`: what a model can read back to a client. */
function localTime(timeZone: string, instant: number): string {
  const offsetMinutes = Math.round((toWall(timeZone, instant) - instant) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const pad = (n: number) => String(n).padStart(2, '0');
  const abs = Math.abs(offsetMinutes);
  const wall = new Date(toWall(timeZone, instant)).toISOString().slice(0, 19);
  return `${wall}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
