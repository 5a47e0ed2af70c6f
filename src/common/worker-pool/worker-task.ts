import { JsonValue } from '../json';

/** A task's input: JSON, copied to the thread. */
export type WorkerInput = Readonly<Record<string, JsonValue>>;

/**
 * Whom a task runs for: `organizationId` picks its sub-queue (see WorkerPool). Every field is
 * copied to the thread and handed to the executor, so a caller leaves its secrets out.
 */
export interface WorkerTaskContext {
  organizationId: string;
  [field: string]: unknown;
}

/** A task's context as its caller gives it: `signal` aborts the task, waiting or running. */
export interface WorkerRunContext extends WorkerTaskContext {
  signal: AbortSignal;
}

/**
 * What a worker module exports as `WORKER_TOOL_EXECUTORS`, by task name: the name the built-in
 * toolkits' worker modules gave it, which the scheduler's follow (a ToolExecutor has this shape).
 */
export interface WorkerExecutor {
  execute(input: WorkerInput, context: WorkerRunContext): Promise<unknown>;
}

/**
 * A failure the task means its caller to read (a bad argument), not a bug. Thrown in the thread
 * (ToolExecutionError is one), it reaches the caller as a WorkerTaskError with the same message;
 * anything else thrown there reaches it as a plain Error.
 */
export class WorkerTaskError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerTaskError';
  }
}
