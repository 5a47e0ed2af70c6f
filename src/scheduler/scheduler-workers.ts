import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { FieldError, ProblemException } from '../common/http/problem';
import { Metrics } from '../metrics';
import type { ToolInput } from '../tools';
import {
  WorkerBudgetExceeded,
  WorkerPool,
  WorkerPoolBusy,
  WorkerPoolUnavailable,
} from '../common/worker-pool/worker-pool';
import {
  SCHEDULE_PREVIEW_MODULE,
  SCHEDULE_PREVIEW_TASK,
  SchedulePreviewResult,
  SchedulePreviewTask,
} from './schedule/schedule-preview.worker';
import { NormalizedPhoneNumbers } from './phone-numbers';
import { NORMALIZE_PHONE_NUMBERS_TASK, PHONE_NUMBERS_MODULE } from './phone-numbers.worker';

/**
 * Thread time for a preview of up to 500 occurrences: the rarest rules that fire at all (a leap
 * day, every minute of it) take about 2.5 s on a loaded machine.
 */
const PREVIEW_BUDGET_MS = 5_000;
/**
 * Thread time for checking a new follow-up's frequency: parsing it and finding its next two
 * occurrences takes a few milliseconds for any rule that fires; a rule that never does (29 or
 * 30 February, every minute) can walk rrule's calendar to year 9999 for minutes.
 */
export const SCHEDULE_CHECK_BUDGET_MS = 250;
/** Thread time for normalising up to 10,000 phone numbers (about half a second idle). */
const PHONE_NUMBERS_BUDGET_MS = 10_000;

/** A preview that did not finish within its budget (the thread was stopped). */
export class SchedulePreviewTimeout extends Error {}

/**
 * For HTTP callers: `503 busy` with `Retry-After` when the scheduler thread's queue (or the
 * organization's share of it) is full, or when the thread cannot start; else `error` itself.
 */
export function schedulerThreadBusy(error: unknown): unknown {
  if (error instanceof WorkerPoolBusy) {
    return new ProblemException(
      'busy',
      'The scheduler thread that checks schedules and phone numbers is busy; retry shortly.',
      { headers: { 'Retry-After': '1' } },
    );
  }
  if (error instanceof WorkerPoolUnavailable) {
    return new ProblemException(
      'busy',
      'The scheduler thread that checks schedules and phone numbers cannot start at the moment; it is being started again. Retry shortly.',
      { headers: { 'Retry-After': String(error.retryAfterSeconds) } },
    );
  }
  return error;
}

/**
 * A task's whole time, waiting in the queue included: a safety net, since each task's time on the
 * thread has its own, much smaller budget and the queue is bounded.
 */
const TASK_DEADLINE_MS = 30_000;

/**
 * The scheduler's CPU-bound work, off the event loop: expanding schedules (a rare rule walks years
 * of calendar per occurrence, one that never fires can walk for minutes) and normalising a
 * follow-up's phone numbers. One thread of its own, started on first use; each task's time on
 * the thread is bounded, and a spent budget stops the thread. Every task names its organization:
 * the queue serves organizations in turn and holds at most a quarter of its places for one.
 */
@Injectable()
export class SchedulerWorkers implements OnApplicationShutdown {
  private readonly workers: WorkerPool;

  constructor(metrics: Metrics) {
    this.workers = new WorkerPool(1, [SCHEDULE_PREVIEW_MODULE, PHONE_NUMBERS_MODULE], {
      name: 'scheduler',
      ...metrics.workerPoolEvents('scheduler'),
    });
  }

  onApplicationShutdown(): Promise<void> {
    return this.workers.close();
  }

  /**
   * The occurrences, or the query's field error. Stops when `signal` (a tool execution's own)
   * aborts, at TOOL_EXECUTION_TIMEOUT_MS in all, or after PREVIEW_BUDGET_MS on the thread.
   */
  async preview(
    organizationId: string,
    task: SchedulePreviewTask,
    signal?: AbortSignal,
  ): Promise<SchedulePreviewResult> {
    try {
      return await this.schedule(organizationId, task, PREVIEW_BUDGET_MS, signal);
    } catch (error) {
      if (error instanceof WorkerBudgetExceeded || isTimeout(error)) {
        throw new SchedulePreviewTimeout(`took over ${PREVIEW_BUDGET_MS} ms`);
      }
      throw error;
    }
  }

  /**
   * Checks in the thread (for HTTP and tool callers alike) that a new follow-up's frequency parses and that its next occurrences
   * can be found cheaply, so that the event loop, which then parses it again and computes each
   * next run, never meets a rule that costs more. Answers the field error, if any.
   */
  async check(
    organizationId: string,
    frequency: string,
    timeZone: string,
    anchorMs: number,
  ): Promise<FieldError[]> {
    try {
      const result = await this.schedule(
        organizationId,
        { frequency, time_zone: timeZone, count: 2, from: anchorMs },
        SCHEDULE_CHECK_BUDGET_MS,
      );
      return 'error' in result ? [result.error] : [];
    } catch (error) {
      if (!(error instanceof WorkerBudgetExceeded || isTimeout(error))) throw error;
      return [
        {
          field: 'frequency',
          message: `takes too long to evaluate (over ${SCHEDULE_CHECK_BUDGET_MS} ms); a rule that matches almost no date may never fire`,
        },
      ];
    }
  }

  /** E.164, deduplicated, each bad entry named (see normalizePhoneNumbers), in the thread. */
  async normalizePhoneNumbers(
    organizationId: string,
    numbers: readonly unknown[],
  ): Promise<NormalizedPhoneNumbers> {
    try {
      return (await this.run(
        organizationId,
        NORMALIZE_PHONE_NUMBERS_TASK,
        { numbers: numbers as ToolInput[string] },
        PHONE_NUMBERS_BUDGET_MS,
      )) as NormalizedPhoneNumbers;
    } catch (error) {
      if (!(error instanceof WorkerBudgetExceeded || isTimeout(error))) throw error;
      return {
        numbers: [],
        errors: [{ field: 'client_phone_numbers', message: 'took too long to check; retry' }],
      };
    }
  }

  private async schedule(
    organizationId: string,
    task: SchedulePreviewTask,
    budgetMs: number,
    signal?: AbortSignal,
  ): Promise<SchedulePreviewResult> {
    return (await this.run(
      organizationId,
      SCHEDULE_PREVIEW_TASK,
      { ...task },
      budgetMs,
      signal,
    )) as SchedulePreviewResult;
  }

  private async run(
    organizationId: string,
    name: string,
    input: ToolInput,
    budgetMs: number,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const timeoutMs = TASK_DEADLINE_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const context = {
      organizationId,
      agentId: '',
      toolId: '',
      toolCreatedBy: '',
      executedBy: '',
      timeoutMs,
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    };
    try {
      return await this.workers.run(name, input, context, { budgetMs });
    } catch (error) {
      if (deadline.aborted && !(error instanceof WorkerBudgetExceeded)) {
        throw Object.assign(new Error('timed out'), { name: 'TimeoutError' });
      }
      throw error;
    }
  }
}

const isTimeout = (error: unknown) => error instanceof Error && error.name === 'TimeoutError';
