import { toWall } from '../../common/zoned-time';
import { ToolExecutionError, ToolExecutor } from '../../tools/execution/tool-executor';
import { parseSchedule } from '../schedule/schedule.parser';
import { ScheduleError } from '../schedule/schedule.types';

/** This file, as a worker module of ToolWorkerPool (`.js` from dist/, `.ts` under ts-node/jest). */
export const PREVIEW_SCHEDULE_MODULE = __filename;
export const PREVIEW_SCHEDULE_TASK = 'Agentline.PreviewSchedule';

/** What the main thread hands over: a checked query, `from` filled in from its clock. */
export interface PreviewScheduleTask {
  frequency: string;
  time_zone: string;
  count: number;
  from: number;
}

/**
 * Expanding a schedule costs with how rarely it fires (a leap-day rule walks years per
 * occurrence): it runs in a worker thread. Errors read as GET /v1/scheduler/preview's 400 does.
 */
export const WORKER_TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  [PREVIEW_SCHEDULE_TASK]: {
    async execute(input) {
      const task = input as unknown as PreviewScheduleTask;
      let occurrences: number[];
      try {
        const schedule = parseSchedule(task.frequency, task.time_zone, task.from);
        occurrences = schedule.occurrences(task.from, task.count);
      } catch (error) {
        if (!(error instanceof ScheduleError)) throw error;
        throw new ToolExecutionError(`The request is not valid. ${error.field}: ${error.message}`);
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
