import { ToolExecutionContext, ToolExecutionError } from '../tool-executor';
import { MATH_WORKER_MODULE } from '../../toolkits/math/math.executors';
import { TEXT_WORKER_MODULE } from '../../toolkits/text/text.executors';
import { ToolWorkerPool } from './tool-worker.pool';

const CPU_TOOLS_MODULES = [MATH_WORKER_MODULE, TEXT_WORKER_MODULE];

/** Far more text than the catalog allows: seconds of work, to have something to stop. */
const HUGE_TEXT = 'hello world. '.repeat(400_000);

function contextWith(signal = new AbortController().signal): ToolExecutionContext {
  return {
    organizationId: 'org',
    agentId: 'agent',
    toolId: 'tool',
    toolCreatedBy: 'creator',
    executedBy: 'caller',
    apiKey: 'never-crosses',
    signal,
    timeoutMs: 1000,
  };
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

describe('ToolWorkerPool', () => {
  let pool: ToolWorkerPool;

  beforeAll(async () => {
    pool = new ToolWorkerPool(1, CPU_TOOLS_MODULES);
    await pool.start();
  }, 30_000);
  afterAll(() => pool.close());

  it('runs a tool in a worker thread and answers its value', async () => {
    await expect(
      pool.run('Text.CountWords', { text: 'One two. Three' }, contextWith()),
    ).resolves.toEqual({ words: 3, characters: 14, sentences: 2, lines: 1 });
  });

  it("answers a tool's own failure as a ToolExecutionError with its message", async () => {
    const failure = pool.run('Math.Calculate', { expression: '1 / 0' }, contextWith());
    await expect(failure).rejects.toBeInstanceOf(ToolExecutionError);
    await expect(failure).rejects.toThrow('Division by zero at position 3.');
  });

  it('answers a bug as a plain error', async () => {
    const failure = pool.run('Nope.Missing', {}, contextWith());
    await expect(failure).rejects.not.toBeInstanceOf(ToolExecutionError);
    await expect(failure).rejects.toThrow('No worker executor for Nope.Missing');
  });

  it('keeps the event loop free while a tool runs, and an abort stops the tool at once', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const run = pool.run('Text.CountWords', { text: HUGE_TEXT }, contextWith(controller.signal));
    setTimeout(() => controller.abort(), 300);
    const lag = await lagDuring(run);
    await expect(run).rejects.toThrow('aborted');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(lag).toBeLessThan(100);
    // A fresh thread took the stopped one's place.
    await expect(pool.run('Math.Calculate', { expression: '6 * 7' }, contextWith())).resolves.toBe(
      42,
    );
  }, 30_000);

  it('runs tasks one after another when every thread is busy, and drops an aborted queued one', async () => {
    const first = pool.run('Math.Calculate', { expression: '1 + 1' }, contextWith());
    const controller = new AbortController();
    const dropped = pool.run('Math.Calculate', { expression: '2' }, contextWith(controller.signal));
    const third = pool.run('Math.Statistics', { values: [1, 2, 3] }, contextWith());
    const droppedAnswer = expect(dropped).rejects.toThrow('aborted');
    controller.abort();
    await expect(first).resolves.toBe(2);
    await droppedAnswer;
    await expect(third).resolves.toMatchObject({ count: 3, mean: 2 });
  });

  it('refuses work once closed', async () => {
    const closing = new ToolWorkerPool(1, CPU_TOOLS_MODULES);
    await closing.start();
    const running = closing.run('Text.CountWords', { text: HUGE_TEXT }, contextWith());
    const runningAnswer = expect(running).rejects.toThrow('closed');
    await closing.close();
    await runningAnswer;
    await expect(closing.run('Math.Calculate', { expression: '1' }, contextWith())).rejects.toThrow(
      'closed',
    );
  }, 30_000);

  it('starts its threads on the first task when nobody started it', async () => {
    const lazy = new ToolWorkerPool(1, CPU_TOOLS_MODULES);
    try {
      await expect(
        lazy.run('Math.Calculate', { expression: '6 * 7' }, contextWith()),
      ).resolves.toBe(42);
    } finally {
      await lazy.close();
    }
  }, 30_000);
});
