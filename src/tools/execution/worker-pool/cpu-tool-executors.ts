import { ToolExecutor } from '../tool-executor';
import { calculate, statistics } from '../builtin/math/math.executors';
import { changeCase, countWords } from '../builtin/text/text.executors';

/** This file, as a worker module of ToolWorkerPool (`.js` from dist/, `.ts` under ts-node/jest). */
export const CPU_TOOLS_MODULE = __filename;

/**
 * The built-in tools whose cost grows with their input and that need nothing but it (no clock,
 * no network, no database): they run in the tool worker pool, off the event loop, where a
 * time-out can stop them. Everything they import must load without Nest.
 */
export const WORKER_TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  'Math.Calculate': calculate,
  'Math.Statistics': statistics,
  'Text.CountWords': countWords,
  'Text.ChangeCase': changeCase,
};
