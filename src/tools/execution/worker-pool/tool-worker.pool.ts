import { Logger } from '@nestjs/common';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  ToolExecutionContext,
  ToolExecutionError,
  ToolExecutor,
  ToolInput,
} from '../tool-executor';
import { ToolWorkerMessage, ToolWorkerTask } from './tool-worker.messages';

/**
 * Loads the worker entry beside this file: `.js` under `npm start` (dist/), `.ts` under ts-node
 * (`npm run start:dev`) and jest, where the thread registers ts-node first. A worker thread does
 * not share the loader of the thread that starts it, so it needs its own.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.tsNode) require(workerData.tsNode).register({ transpileOnly: true });
require(workerData.entry);
`;

const ENTRY = path.join(__dirname, `tool-worker.entry${path.extname(__filename)}`);

/** A task refused when this many already wait: the pool is saturated, waiting would time out. */
const MAX_QUEUED_PER_THREAD = 64;
/** A worker's heap: a hostile input ends the task (as failed), not the process. */
const WORKER_HEAP_MB = 256;

interface Task {
  message: ToolWorkerTask;
  signal: AbortSignal;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Removes the abort listener (and the budget timer) once the task is settled. */
  detach: () => void;
  /** Thread time allowed, counted from when a thread takes the task (not while it queues). */
  budgetMs?: number;
  budgetTimer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  /** Resolves when the thread has loaded its executors; rejects if it cannot. */
  ready: Promise<void>;
  loaded: boolean;
  task?: Task;
}

/**
 * A fixed set of worker threads that run CPU-bound tools (the WORKER_TOOL_EXECUTORS of its
 * modules) one task per thread, so that no input can hold the event loop. An aborted task (the execution's
 * time-out) terminates its thread, which stops even a tool stuck in a loop; a fresh thread takes
 * its place. Tasks wait in a bounded queue when every thread is busy.
 */
export class ToolWorkerPool {
  private readonly logger = new Logger(ToolWorkerPool.name);
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private closed = false;
  private started = false;

  /**
   * @param modules absolute paths of the modules whose WORKER_TOOL_EXECUTORS the threads run
   * (each module's own `__filename`, so that it is `.js` or `.ts` as the process runs).
   */
  constructor(
    private readonly threads: number,
    private readonly modules: readonly string[],
  ) {}

  /**
   * Starts the threads; resolves when every one has loaded its executors. `run` starts them on
   * first use, so an app whose CPU-bound tools are never called pays nothing for them (a thread
   * takes about half a second to load, a second under ts-node): the first call waits for it.
   */
  async start(): Promise<void> {
    this.started = true;
    while (this.slots.length < this.threads) this.slots.push(this.spawn());
    await Promise.all(this.slots.map((slot) => slot.ready));
  }

  /** An executor that runs `name` in the pool. */
  executor(name: string): ToolExecutor {
    return { execute: (input, context) => this.run(name, input, context) };
  }

  /**
   * Runs `name` with `input`. `context.signal` aborts it whether it waits or runs; `budgetMs`
   * bounds its time on a thread, so a task queued behind a slow one is not charged for the wait
   * (it rejects with a ToolWorkerBudgetExceeded when spent).
   */
  run(
    name: string,
    input: ToolInput,
    context: ToolExecutionContext,
    { budgetMs }: { budgetMs?: number } = {},
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('The tool worker pool is closed'));
    if (!this.started) void this.start().catch(() => undefined);
    if (this.slots.length === 0) return Promise.reject(noThreadsError());
    const { signal } = context;
    if (signal.aborted) return Promise.reject(abortError());
    if (this.queue.length >= this.threads * MAX_QUEUED_PER_THREAD) {
      return Promise.reject(new ToolWorkerPoolBusy());
    }
    return new Promise((resolve, reject) => {
      const task: Task = {
        message: { name, input, context: workerContext(context) },
        signal,
        resolve,
        reject,
        budgetMs,
        detach: () => {
          signal.removeEventListener('abort', onAbort);
          clearTimeout(task.budgetTimer);
        },
      };
      const onAbort = () => this.abort(task, abortError());
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** Terminates every thread; tasks still running or queued are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) settle(task, () => task.reject(closedError()));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.task) settle(slot.task, () => slot.task?.reject(closedError()));
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: {
        entry: ENTRY,
        modules: this.modules,
        tsNode: ENTRY.endsWith('.ts') ? require.resolve('ts-node') : undefined,
      },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // Threads never keep the process alive: shutdown closes the pool, a task in flight is lost.
    worker.unref();
    const slot: Slot = { worker, ready: Promise.resolve(), loaded: false };
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: ToolWorkerMessage) => {
        if (message.kind === 'ready') {
          slot.loaded = true;
          resolve();
          this.dispatch();
        } else this.answer(slot, message);
      });
      worker.on('error', (error) => {
        reject(error);
        this.crashed(slot, error);
      });
      worker.on('exit', (code) => {
        reject(new Error(`exited with code ${code}`));
        this.exited(slot, code);
      });
    });
    slot.ready.catch(() => undefined);
    return slot;
  }

  /** Hands queued tasks to idle, loaded threads. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.task || !slot.loaded) continue;
      const task = this.queue.shift() as Task;
      slot.task = task;
      if (task.budgetMs !== undefined) {
        const budgetMs = task.budgetMs;
        task.budgetTimer = setTimeout(
          () => this.abort(task, new ToolWorkerBudgetExceeded(budgetMs)),
          budgetMs,
        );
      }
      slot.worker.postMessage(task.message);
    }
  }

  private answer(slot: Slot, message: ToolWorkerMessage): void {
    const task = slot.task;
    if (!task || message.kind === 'ready') return;
    slot.task = undefined;
    settle(task, () => {
      if (message.kind === 'value') task.resolve(message.value);
      else if (message.kind === 'tool_error') task.reject(new ToolExecutionError(message.message));
      else {
        const error = new Error(message.message);
        error.stack = message.stack;
        task.reject(error);
      }
    });
    this.dispatch();
  }

  /** The time-out: a queued task leaves the queue; a running one takes its thread down with it. */
  private abort(task: Task, reason: Error): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      settle(task, () => task.reject(reason));
      return;
    }
    const slot = this.slots.find((candidate) => candidate.task === task);
    if (!slot) return;
    settle(task, () => task.reject(reason));
    this.replace(slot);
  }

  private crashed(slot: Slot, error: Error): void {
    const task = slot.task;
    if (task) {
      // Out of memory is what a hostile input does: the tool fails, agentline carries on.
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(task, () =>
        task.reject(
          outOfMemory
            ? new ToolExecutionError('The input needs more memory than a tool may use.')
            : error,
        ),
      );
    }
    this.replace(slot);
  }

  private exited(slot: Slot, code: number): void {
    if (!this.slots.includes(slot)) return;
    const task = slot.task;
    if (task) settle(task, () => task.reject(new Error(`A tool worker thread exited (${code})`)));
    this.replace(slot);
  }

  /**
   * Retires a thread (terminating it if it still runs) and starts another in its place; not one
   * that failed before loading, which would fail again (and again): that is logged, and when no
   * thread is left the waiting tasks fail.
   */
  private replace(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    slot.task = undefined;
    void slot.worker.terminate();
    if (!this.closed && slot.loaded) {
      this.slots[index] = this.spawn();
      return;
    }
    this.slots.splice(index, 1);
    if (this.closed) return;
    this.logger.error('A tool worker thread failed to start; it is not replaced.');
    if (this.slots.length === 0) {
      for (const task of this.queue.splice(0)) settle(task, () => task.reject(noThreadsError()));
    }
  }
}

/** Settles a task once: a late answer after a time-out or a crash changes nothing. */
function settle(task: Task, action: () => void): void {
  if (settled.has(task)) return;
  settled.add(task);
  task.detach();
  action();
}

const settled = new WeakSet<Task>();

function workerContext(context: ToolExecutionContext): ToolWorkerTask['context'] {
  const { organizationId, agentId, toolId, toolCreatedBy, executedBy, timeoutMs } = context;
  return { organizationId, agentId, toolId, toolCreatedBy, executedBy, timeoutMs };
}

/** Every thread is busy and the queue is full: a tool error, which an HTTP caller may map to 503. */
export class ToolWorkerPoolBusy extends ToolExecutionError {
  constructor() {
    super('Too many tool executions are running; try again shortly.');
  }
}

/** A task that used up its thread-time budget (its thread was stopped). */
export class ToolWorkerBudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`took over ${budgetMs} ms`);
    this.name = 'ToolWorkerBudgetExceeded';
  }
}

function abortError(): Error {
  const error = new Error('The tool execution was aborted');
  error.name = 'AbortError';
  return error;
}

function noThreadsError(): Error {
  return new Error('No tool worker thread could start');
}

function closedError(): Error {
  return new Error('The tool worker pool closed while the tool ran');
}
