import { Logger } from '@nestjs/common';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { FairQueue } from './fair-queue';
import { WorkerAnswer, WorkerTaskMessage } from './worker.messages';
import { WorkerInput, WorkerRunContext, WorkerTaskError } from './worker-task';

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

const ENTRY = path.join(__dirname, `worker.entry${path.extname(__filename)}`);

/** A task refused when this many already wait: the pool is saturated, waiting would time out. */
const MAX_QUEUED_PER_THREAD = 64;
/**
 * One organization's share of the queue: a quarter, so that its burst is refused for itself while
 * the others still get in (and when the whole queue is full, see `makeRoom`).
 */
const MAX_QUEUED_PER_ORGANIZATION_PER_THREAD = 16;
/**
 * A thread that failed to start is started again after this delay, doubled after each failure in
 * a row up to the maximum: a script that can never load costs one attempt every 10 s.
 */
const RESTART_DELAY_MS = { min: 100, max: 10_000 };
/** A worker's heap: a hostile input ends the task (as failed), not the process. */
const WORKER_HEAP_MB = 256;

interface Task {
  /** The organization whose sub-queue it waits in (empty for work of no organization). */
  organization: string;
  message: WorkerTaskMessage;
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

/** Why a task was refused at once: the queue is full, the organization's share of it is, or no thread could start. */
export type WorkerRefusal = 'queue_full' | 'organization_full' | 'unavailable';

export interface WorkerPoolOptions {
  /** Names the pool in logs and metrics (`tools`, `scheduler`). */
  name?: string;
  /** Delays before starting again a thread that failed to start (doubling from min to max). */
  restartDelayMs?: { min: number; max: number };
  /** Called for each thread that failed to start, with the delay before it is started again. */
  onStartFailure?: (failure: { restartInMs: number }) => void;
  /** Called for each task refused at once (for metrics). */
  onRefusal?: (reason: WorkerRefusal) => void;
}

/**
 * A fixed set of worker threads that run CPU-bound tasks (the WORKER_TOOL_EXECUTORS of its
 * modules) one task per thread, so that no input can hold the event loop. In the kernel: tools
 * and the scheduler each own a pool, neither through the other. An aborted task (the caller's
 * time-out) terminates its thread, which stops even a task stuck in a loop; a fresh thread takes
 * its place. Tasks wait in a bounded queue when every thread is busy, one sub-queue per
 * organization served in turn, so that one organization's burst cannot hold up the others. A
 * thread that fails to start is started again later (see `startFailed`); meanwhile the tasks that
 * have no thread to wait for are refused with WorkerPoolUnavailable.
 */
export class WorkerPool {
  private readonly logger = new Logger(WorkerPool.name);
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Task>();
  private closed = false;
  private started = false;
  /** Thread starts that failed in a row (back to 0 when a thread loads): the restart delay grows with it. */
  private failedStarts = 0;
  /** Threads waiting to be started again, by when (performance.now()). */
  private readonly restarts = new Map<NodeJS.Timeout, number>();
  private readonly name: string;
  private readonly restartDelayMs: { min: number; max: number };

  /**
   * @param modules absolute paths of the modules whose WORKER_TOOL_EXECUTORS the threads run
   * (each module's own `__filename`, so that it is `.js` or `.ts` as the process runs).
   */
  constructor(
    private readonly threads: number,
    private readonly modules: readonly string[],
    private readonly options: WorkerPoolOptions = {},
  ) {
    this.name = options.name ?? 'pool';
    this.restartDelayMs = options.restartDelayMs ?? RESTART_DELAY_MS;
  }

  /**
   * Starts the threads; resolves when every one has loaded its executors. `run` starts them on
   * first use, so an app whose CPU-bound tasks are never called pays nothing for them (a thread
   * takes about half a second to load, a second under ts-node): the first call waits for it.
   */
  async start(): Promise<void> {
    this.started = true;
    while (this.slots.length + this.restarts.size < this.threads) this.spawn();
    await Promise.all(this.slots.map((slot) => slot.ready));
    if (!this.slots.some((slot) => slot.loaded)) throw this.unavailable();
  }

  /**
   * Runs `name` with `input`. `context.signal` aborts it whether it waits or runs; `budgetMs`
   * bounds its time on a thread, so a task queued behind a slow one is not charged for the wait
   * (it rejects with a WorkerBudgetExceeded when spent). Every field of `context` but `signal` is
   * copied to the thread.
   */
  run(
    name: string,
    input: WorkerInput,
    context: WorkerRunContext,
    { budgetMs }: { budgetMs?: number } = {},
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('The worker pool is closed'));
    if (!this.started) void this.start().catch(() => undefined);
    // Every thread failed to start and waits for its restart: nothing to wait for.
    if (this.slots.length === 0) return Promise.reject(this.refuse('unavailable'));
    const { signal, ...forwarded } = context;
    if (signal.aborted) return Promise.reject(abortError());
    const organization = context.organizationId;
    if (this.queue.sizeOf(organization) >= this.threads * MAX_QUEUED_PER_ORGANIZATION_PER_THREAD) {
      return Promise.reject(this.refuse('organization_full'));
    }
    if (this.queue.size >= this.threads * MAX_QUEUED_PER_THREAD && !this.makeRoom(organization)) {
      return Promise.reject(this.refuse('queue_full'));
    }
    return new Promise((resolve, reject) => {
      const task: Task = {
        organization,
        message: { name, input, context: forwarded },
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
      this.queue.push(organization, task);
      this.dispatch();
    });
  }

  /** Terminates every thread; tasks still running or queued are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.restarts.keys()) clearTimeout(timer);
    this.restarts.clear();
    for (const task of this.queue.drain()) settle(task, () => task.reject(closedError()));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.task) settle(slot.task, () => slot.task?.reject(closedError()));
        return slot.worker.terminate();
      }),
    );
  }

  /** Starts a thread into a new slot; one that cannot even be created counts as a failed start. */
  private spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(BOOTSTRAP, {
        eval: true,
        workerData: {
          entry: ENTRY,
          modules: this.modules,
          tsNode: ENTRY.endsWith('.ts') ? require.resolve('ts-node') : undefined,
        },
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      });
    } catch (error) {
      this.startFailed(error);
      return;
    }
    // Threads never keep the process alive: shutdown closes the pool, a task in flight is lost.
    worker.unref();
    const slot: Slot = { worker, ready: Promise.resolve(), loaded: false };
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: WorkerAnswer) => {
        if (message.kind === 'ready') {
          slot.loaded = true;
          this.threadLoaded();
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
    this.slots.push(slot);
  }

  /** Hands queued tasks to idle, loaded threads, each organization in turn. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.size === 0) return;
      if (slot.task || !slot.loaded) continue;
      const task = this.queue.shift() as Task;
      slot.task = task;
      if (task.budgetMs !== undefined) {
        const budgetMs = task.budgetMs;
        task.budgetTimer = setTimeout(
          () => this.abort(task, new WorkerBudgetExceeded(budgetMs)),
          budgetMs,
        );
      }
      slot.worker.postMessage(task.message);
    }
  }

  private answer(slot: Slot, message: WorkerAnswer): void {
    const task = slot.task;
    if (!task || message.kind === 'ready') return;
    slot.task = undefined;
    settle(task, () => {
      if (message.kind === 'value') task.resolve(message.value);
      else if (message.kind === 'task_error') task.reject(new WorkerTaskError(message.message));
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
    if (this.queue.remove(task.organization, task)) {
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
      // Out of memory is what a hostile input does: the task fails, agentline carries on.
      const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(task, () => task.reject(outOfMemory ? new WorkerOutOfMemory() : error));
    }
    this.replace(slot, error);
  }

  private exited(slot: Slot, code: number): void {
    if (!this.slots.includes(slot)) return;
    const task = slot.task;
    if (task) settle(task, () => task.reject(new Error(`A worker thread exited (${code})`)));
    this.replace(slot, new Error(`the thread exited with code ${code}`));
  }

  /**
   * Retires a thread (terminating it if it still runs) and starts another in its place, at once
   * when it had loaded; one that failed before loading would likely fail again, so it is started
   * again after a delay (`startFailed`).
   */
  private replace(slot: Slot, error?: Error): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    slot.task = undefined;
    void slot.worker.terminate();
    if (this.closed) return;
    if (slot.loaded) this.spawn();
    else this.startFailed(error ?? new Error('the thread stopped while starting'));
  }

  /**
   * A thread failed to start (its script threw while loading, a resource limit, the thread could
   * not be created, it exited): logged once per run of failures, counted, and started again after
   * a delay that doubles with each failure in a row, so that a script that can never load does
   * not spin. When no thread is left to wait for, the queued tasks are refused now rather than
   * left to time out.
   */
  private startFailed(error: unknown): void {
    this.failedStarts += 1;
    const { min, max } = this.restartDelayMs;
    const delayMs = Math.min(max, min * 2 ** (this.failedStarts - 1));
    this.options.onStartFailure?.({ restartInMs: delayMs });
    if (this.failedStarts === 1) {
      // The message only: a stack of the worker's loader says nothing more, and goes nowhere else.
      this.logger.error(
        `A ${this.name} worker thread failed to start (${describe(error)}); starting it again, at most every ${max} ms, until one starts. Its tasks are refused as busy meanwhile.`,
      );
    }
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      if (!this.closed) this.spawn();
    }, delayMs);
    timer.unref();
    this.restarts.set(timer, performance.now() + delayMs);
    if (this.slots.length > 0) return;
    for (const task of this.queue.drain())
      settle(task, () => task.reject(this.refuse('unavailable')));
  }

  /** A thread loaded: a run of failed starts, if any, is over. */
  private threadLoaded(): void {
    if (this.failedStarts === 0) return;
    this.logger.log(
      `A ${this.name} worker thread started after ${this.failedStarts} failed start(s).`,
    );
    this.failedStarts = 0;
  }

  /**
   * The queue is full: a task of an organization that holds fewer of its places than the largest
   * holder (by two or more) takes the largest holder's newest place, which is refused as busy.
   * So a burst cannot fill the queue for an organization that has nothing in it.
   */
  private makeRoom(organization: string): boolean {
    const largest = this.queue.largest();
    if (largest === undefined) return false;
    if (this.queue.sizeOf(largest) < this.queue.sizeOf(organization) + 2) return false;
    const evicted = this.queue.popNewest(largest) as Task;
    settle(evicted, () => evicted.reject(this.refuse('queue_full')));
    return true;
  }

  private refuse(reason: WorkerRefusal): Error {
    this.options.onRefusal?.(reason);
    return reason === 'unavailable' ? this.unavailable() : new WorkerPoolBusy();
  }

  /** No thread to run on: retry when the next restart is due (at least a second from now). */
  private unavailable(): WorkerPoolUnavailable {
    const next = Math.min(...this.restarts.values());
    const waitMs = Number.isFinite(next) ? next - performance.now() : 0;
    return new WorkerPoolUnavailable(Math.max(1, Math.ceil(waitMs / 1000)));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Settles a task once: a late answer after a time-out or a crash changes nothing. */
function settle(task: Task, action: () => void): void {
  if (settled.has(task)) return;
  settled.add(task);
  task.detach();
  action();
}

const settled = new WeakSet<Task>();

/**
 * Every thread is busy and the queue (or the organization's share of it) is full: the caller's
 * to word, as a tool failure (tools) or `503 busy` (the scheduler's HTTP callers).
 */
export class WorkerPoolBusy extends Error {
  constructor() {
    super('Too many tasks are waiting for the worker threads; try again shortly.');
    this.name = 'WorkerPoolBusy';
  }
}

/** A task ran its thread out of memory: a hostile input, the caller's to word. */
export class WorkerOutOfMemory extends Error {
  constructor() {
    super('The input needs more memory than a worker thread may use.');
    this.name = 'WorkerOutOfMemory';
  }
}

/**
 * No thread of the pool could start (see WorkerPool.startFailed): not the caller's fault and
 * not a bug of the task, so HTTP callers answer `503 busy` with `Retry-After: retryAfterSeconds`.
 */
export class WorkerPoolUnavailable extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('No worker thread could start; they are being started again.');
    this.name = 'WorkerPoolUnavailable';
  }
}

/** A task that used up its thread-time budget (its thread was stopped). */
export class WorkerBudgetExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`took over ${budgetMs} ms`);
    this.name = 'WorkerBudgetExceeded';
  }
}

function abortError(): Error {
  const error = new Error('The task was aborted');
  error.name = 'AbortError';
  return error;
}

function closedError(): Error {
  return new Error('The worker pool closed while the task ran');
}
