import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  WorkerOutOfMemory,
  WorkerPool,
  WorkerPoolBusy,
  WorkerPoolUnavailable,
} from '../../common/worker-pool/worker-pool';
import { WorkerTaskError } from '../../common/worker-pool/worker-task';
import { MATH_WORKER_MODULE } from '../toolkits/math/math.executors';
import { TEXT_WORKER_MODULE } from '../toolkits/text/text.executors';
import { ToolExecutionContext, ToolExecutionError, ToolInput } from './tool-executor';
import { asToolFailure, workerToolExecutor } from './worker-tool-executor';

const CPU_TOOLS_MODULES = [MATH_WORKER_MODULE, TEXT_WORKER_MODULE];

/** Far more text than the catalog allows: seconds of work, to have something to stop. */
const HUGE_TEXT = 'hello world. '.repeat(400_000);

function contextWith(
  signal = new AbortController().signal,
  organizationId = 'org',
): ToolExecutionContext {
  return {
    organizationId,
    agentId: 'agent',
    toolId: 'tool',
    toolCreatedBy: 'creator',
    executedBy: 'caller',
    apiKey: 'never-crosses',
    signal,
    timeoutMs: 1000,
  };
}

/** Runs the tool `name` in `pool` as ToolExecutionService would: through its executor. */
function runIn(pool: WorkerPool, name: string, input: ToolInput, context: ToolExecutionContext) {
  return workerToolExecutor(pool, name).execute(input, context);
}

/** How late a 10 ms timer fires while `work` runs: the event loop's lag. */
async function lagDuring(work: Promise<unknown>): Promise<number> {
  let worst = 0;
  let running = true;
  void work.finally(() => (running = false)).catch(() => undefined);
  while (running) {
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
    worst = Math.max(worst, performance.now() - started - 10);
  }
  return worst;
}

describe('the CPU-bound tools in worker threads (workerToolExecutor)', () => {
  let pool: WorkerPool;
  const run = (name: string, input: ToolInput, context: ToolExecutionContext) =>
    runIn(pool, name, input, context);

  beforeAll(async () => {
    pool = new WorkerPool(1, CPU_TOOLS_MODULES);
    await pool.start();
  }, 30_000);
  afterAll(() => pool.close());

  it('runs a tool in a worker thread and answers its value', async () => {
    await expect(
      run('Text.CountWords', { text: 'One two. Three' }, contextWith()),
    ).resolves.toEqual({ words: 3, characters: 14, sentences: 2, lines: 1 });
  });

  it("answers a tool's own failure as a ToolExecutionError with its message", async () => {
    const failure = run('Math.Calculate', { expression: '1 / 0' }, contextWith());
    await expect(failure).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(failure).rejects.toThrow('Division by zero at position 3.');
  });

  it('answers a bug as a plain error', async () => {
    const failure = run('Nope.Missing', {}, contextWith());
    await expect(failure).rejects.not.toBeInstanceOf(ToolExecutionError);
    await expect(failure).rejects.toThrow('No worker executor for Nope.Missing');
  });

  it('keeps the event loop free while a tool runs, and an abort stops the tool at once', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const running = run('Text.CountWords', { text: HUGE_TEXT }, contextWith(controller.signal));
    setTimeout(() => controller.abort(), 300);
    const lag = await lagDuring(running);
    await expect(running).rejects.toThrow('aborted');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(lag).toBeLessThan(100);
    // A fresh thread took the stopped one's place.
    await expect(run('Math.Calculate', { expression: '6 * 7' }, contextWith())).resolves.toBe(42);
  }, 30_000);

  it('runs tasks one after another when every thread is busy, and drops an aborted queued one', async () => {
    const first = run('Math.Calculate', { expression: '1 + 1' }, contextWith());
    const controller = new AbortController();
    const dropped = run('Math.Calculate', { expression: '2' }, contextWith(controller.signal));
    const third = run('Math.Statistics', { values: [1, 2, 3] }, contextWith());
    const droppedAnswer = expect(dropped).rejects.toThrow('aborted');
    controller.abort();
    await expect(first).resolves.toBe(2);
    await droppedAnswer;
    await expect(third).resolves.toMatchObject({ count: 3, mean: 2 });
  });

  it('hands the thread no credentials', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'worker-tool-executor-'));
    const file = join(dir, 'context-worker.js');
    writeFileSync(
      file,
      `exports.WORKER_TOOL_EXECUTORS = {
  'Test.Context': { execute: async (_input, context) => Object.keys(context).sort() },
};`,
    );
    const own = new WorkerPool(1, [file]);
    try {
      const context = { ...contextWith(), accessToken: 'never-crosses' };
      await expect(runIn(own, 'Test.Context', {}, context)).resolves.toEqual([
        'agentId',
        'executedBy',
        'organizationId',
        'signal',
        'timeoutMs',
        'toolCreatedBy',
        'toolId',
      ]);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('asToolFailure', () => {
  it("words a full queue and a thread out of memory for the model, and keeps a task's own message", () => {
    expect(asToolFailure(new WorkerPoolBusy())).toEqual(
      new ToolExecutionError('Too many tool executions are running; try again shortly.'),
    );
    expect(asToolFailure(new WorkerOutOfMemory())).toEqual(
      new ToolExecutionError('The input needs more memory than a tool may use.'),
    );
    const own = asToolFailure(new WorkerTaskError('Division by zero at position 3.'));
    expect(own).toBeInstanceOf(ToolExecutionError);
    expect(own).toEqual(new ToolExecutionError('Division by zero at position 3.'));
  });

  it('leaves a bug and a pool that cannot start as they are', () => {
    const bug = new Error('bug');
    const unavailable = new WorkerPoolUnavailable(3);
    expect(asToolFailure(bug)).toBe(bug);
    expect(asToolFailure(unavailable)).toBe(unavailable);
  });
});
