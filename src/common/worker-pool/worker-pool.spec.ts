import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../../test/support/eventually';
import { WorkerPool, WorkerPoolBusy, WorkerPoolUnavailable, WorkerRefusal } from './worker-pool';
import { WorkerInput, WorkerRunContext, WorkerTaskError } from './worker-task';

function contextWith(
  signal = new AbortController().signal,
  organizationId = 'org',
): WorkerRunContext {
  return { organizationId, signal, timeoutMs: 1000 };
}

/**
 * A worker module of our own, in a temporary directory: it refuses to load while `broken` exists
 * (throwing, or exiting the thread when the file says `exit`), and its `Test.Gate` holds its
 * thread until the file named by `input.path` exists.
 */
function testWorkerModule(): { file: string; broken: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'worker-pool-'));
  const broken = join(dir, 'broken');
  const file = join(dir, 'test-worker.js');
  writeFileSync(
    file,
    `const fs = require('node:fs');
if (fs.existsSync(${JSON.stringify(broken)})) {
  if (fs.readFileSync(${JSON.stringify(broken)}, 'utf8') === 'exit') process.exit(3);
  throw new Error('cannot load: broken on purpose');
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const { WorkerTaskError } = require(${JSON.stringify(require.resolve('./worker-task'))});
exports.WORKER_TOOL_EXECUTORS = {
  'Test.Echo': { execute: async (input) => input },
  'Test.Context': { execute: async (_input, context) => Object.keys(context).sort() },
  'Test.Refuse': {
    execute: async () => {
      throw new WorkerTaskError('refused on purpose');
    },
  },
  'Test.Gate': {
    execute: async (input) => {
      while (!fs.existsSync(input.path)) await sleep(5);
      return 'opened';
    },
  },
};
`,
  );
  return { file, broken, dir };
}

describe('WorkerPool, running tasks', () => {
  let worker: ReturnType<typeof testWorkerModule>;
  let pool: WorkerPool;

  beforeAll(async () => {
    worker = testWorkerModule();
    pool = new WorkerPool(1, [worker.file]);
    await pool.start();
  }, 30_000);
  afterAll(async () => {
    await pool.close();
    rmSync(worker.dir, { recursive: true, force: true });
  });

  it('answers the value of a task run in a thread', async () => {
    await expect(pool.run('Test.Echo', { n: 1 }, contextWith())).resolves.toEqual({ n: 1 });
  });

  it("answers a task's own failure as a WorkerTaskError with its message, a bug as a plain error", async () => {
    const refused = pool.run('Test.Refuse', {}, contextWith());
    await expect(refused).rejects.toBeInstanceOf(WorkerTaskError);
    await expect(refused).rejects.toThrow('refused on purpose');
    const bug = pool.run('Nope.Missing', {}, contextWith());
    await expect(bug).rejects.not.toBeInstanceOf(WorkerTaskError);
    await expect(bug).rejects.toThrow('No worker executor for Nope.Missing');
  });

  it('refuses work once closed, and the task it was running', async () => {
    const closing = new WorkerPool(1, [worker.file]);
    await closing.start();
    const held = closing.run('Test.Gate', { path: join(worker.dir, 'never') }, contextWith());
    const heldAnswer = expect(held).rejects.toThrow('closed');
    await closing.close();
    await heldAnswer;
    await expect(closing.run('Test.Echo', {}, contextWith())).rejects.toThrow('closed');
  }, 30_000);

  it('starts its threads on the first task when nobody started it', async () => {
    const lazy = new WorkerPool(1, [worker.file]);
    try {
      await expect(lazy.run('Test.Echo', { n: 2 }, contextWith())).resolves.toEqual({ n: 2 });
    } finally {
      await lazy.close();
    }
  }, 30_000);

  it("hands the executor its caller's context, with a signal of the thread's own", async () => {
    await expect(
      pool.run('Test.Context', {}, { ...contextWith(), agentId: 'agent' }),
    ).resolves.toEqual(['agentId', 'organizationId', 'signal', 'timeoutMs']);
  });
});

describe('WorkerPool, when its threads cannot start', () => {
  let worker: ReturnType<typeof testWorkerModule>;
  beforeEach(() => (worker = testWorkerModule()));
  afterEach(() => rmSync(worker.dir, { recursive: true, force: true }));

  it.each(['throw', 'exit'])(
    'answers the waiting calls as unavailable (%s at load), restarts with a growing, bounded delay, and runs once the script loads',
    async (how) => {
      writeFileSync(worker.broken, how);
      const restartDelays: number[] = [];
      const refusals: WorkerRefusal[] = [];
      const pool = new WorkerPool(1, [worker.file], {
        restartDelayMs: { min: 20, max: 80 },
        onStartFailure: ({ restartInMs }) => restartDelays.push(restartInMs),
        onRefusal: (reason) => refusals.push(reason),
      });
      try {
        // The first call waits for the thread's start, which fails.
        const waiting = pool.run('Test.Echo', { n: 1 }, contextWith());
        await expect(waiting).rejects.toBeInstanceOf(WorkerPoolUnavailable);
        await expect(waiting).rejects.toMatchObject({ retryAfterSeconds: 1 });
        await expect(pool.run('Test.Echo', { n: 2 }, contextWith())).rejects.toBeInstanceOf(
          WorkerPoolUnavailable,
        );
        await eventually(async () => expect(restartDelays.length).toBeGreaterThanOrEqual(5));
        expect(restartDelays.slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
        expect(refusals).toContain('unavailable');

        rmSync(worker.broken);
        await eventually(async () => {
          await expect(pool.run('Test.Echo', { n: 3 }, contextWith())).resolves.toEqual({ n: 3 });
        }, 20_000);
        // The run of failures is over: one more failure starts again from the shortest delay.
        writeFileSync(worker.broken, how);
        const failuresSoFar = restartDelays.length;
        const gate = join(worker.dir, 'never');
        const stuck = new AbortController();
        const running = pool.run('Test.Gate', { path: gate }, contextWith(stuck.signal));
        stuck.abort(); // terminates the loaded thread; its replacement cannot load
        await expect(running).rejects.toThrow('aborted');
        await eventually(async () => expect(restartDelays.length).toBeGreaterThan(failuresSoFar));
        expect(restartDelays[failuresSoFar]).toBe(20);
      } finally {
        await pool.close();
      }
    },
    60_000,
  );

  it('start() rejects when no thread could start, and close() stops the restarts', async () => {
    writeFileSync(worker.broken, 'throw');
    let failures = 0;
    const pool = new WorkerPool(1, [worker.file], {
      restartDelayMs: { min: 10, max: 10 },
      onStartFailure: () => (failures += 1),
    });
    await expect(pool.start()).rejects.toThrow('broken on purpose');
    await pool.close();
    const afterClose = failures;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failures).toBe(afterClose);
  }, 30_000);
});

describe('WorkerPool, shared between organizations', () => {
  let worker: ReturnType<typeof testWorkerModule>;
  let pool: WorkerPool;
  let refusals: WorkerRefusal[];

  beforeEach(async () => {
    worker = testWorkerModule();
    refusals = [];
    pool = new WorkerPool(1, [worker.file], { onRefusal: (reason) => refusals.push(reason) });
    await pool.start();
  }, 30_000);
  afterEach(async () => {
    await pool.close();
    rmSync(worker.dir, { recursive: true, force: true });
  });

  /** Runs Test.Echo for `organization`: `ran`, or `busy` when the pool refused it. */
  function echo(input: WorkerInput, organization: string): Promise<string> {
    return pool.run('Test.Echo', input, contextWith(undefined, organization)).then(
      () => 'ran',
      (error: unknown) => (error instanceof WorkerPoolBusy ? 'busy' : String(error)),
    );
  }

  /** Holds the one thread with a task of `organization` until the returned `open` is called. */
  function holdThread(organization: string) {
    const gate = join(worker.dir, `gate-${organization}`);
    const held = pool.run('Test.Gate', { path: gate }, contextWith(undefined, organization));
    return { held, open: () => writeFileSync(gate, '') };
  }

  it('serves the organizations in turn, not in order of arrival', async () => {
    const { held, open } = holdThread('a');
    const order: string[] = [];
    const queued = [
      ...['a1', 'a2', 'a3', 'a4'].map((id) => ({ id, organization: 'a' })),
      { id: 'b1', organization: 'b' },
    ].map(({ id, organization }) =>
      pool
        .run('Test.Echo', { id }, contextWith(undefined, organization))
        .then(() => order.push(id)),
    );
    open();
    await expect(held).resolves.toBe('opened');
    await Promise.all(queued);
    expect(order).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
  });

  it("refuses an organization's burst beyond its share of the queue, and still queues another's task", async () => {
    const { held, open } = holdThread('a');
    const burst = Array.from({ length: 20 }, (_, n) => echo({ n }, 'a'));
    const other = pool.run('Test.Echo', { n: 'b' }, contextWith(undefined, 'b'));
    open();
    await expect(held).resolves.toBe('opened');
    await expect(other).resolves.toEqual({ n: 'b' });
    const answers = await Promise.all(burst);
    expect(answers.filter((answer) => answer === 'ran')).toHaveLength(16);
    expect(answers.filter((answer) => answer === 'busy')).toHaveLength(4);
    expect(refusals).toEqual(Array(4).fill('organization_full'));
  });

  it("makes room in a full queue for an organization with nothing queued, at the largest holder's expense", async () => {
    const { held, open } = holdThread('a');
    const answers = new Map<string, Promise<string>>();
    // Four organizations fill the 64 places, 16 each.
    for (const organization of ['a', 'b', 'c', 'd']) {
      for (let n = 0; n < 16; n += 1) {
        const id = `${organization}${n}`;
        answers.set(id, echo({ id }, organization));
      }
    }
    const newcomer = pool.run('Test.Echo', { id: 'e0' }, contextWith(undefined, 'e'));
    open();
    await expect(held).resolves.toBe('opened');
    await expect(newcomer).resolves.toEqual({ id: 'e0' });
    // The newest task of the first largest holder gave up its place.
    await expect(answers.get('a15')).resolves.toBe('busy');
    const ran = await Promise.all([...answers.values()]);
    expect(ran.filter((answer) => answer === 'ran')).toHaveLength(63);
    expect(refusals).toEqual(['queue_full']);
  });
});
