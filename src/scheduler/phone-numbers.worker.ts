import type { ToolExecutor } from '../tools';
import { normalizePhoneNumbers, NormalizedPhoneNumbers } from './phone-numbers';

/** This file, as a worker module of WorkerPool (`.js` from dist/, `.ts` under ts-node/jest). */
export const PHONE_NUMBERS_MODULE = __filename;
export const NORMALIZE_PHONE_NUMBERS_TASK = 'Scheduler.NormalizePhoneNumbers';

/**
 * libphonenumber's full metadata costs about 50 µs a number: 10,000 of them held the event loop
 * for half a second or more, so a follow-up's list is checked in the scheduler's thread.
 */
export const WORKER_TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  [NORMALIZE_PHONE_NUMBERS_TASK]: {
    async execute(input): Promise<NormalizedPhoneNumbers> {
      return normalizePhoneNumbers(input.numbers as unknown[]);
    },
  },
};
