import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './support/eventually';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';
import { toolRequests } from './support/tool-requests';

/**
 * A worker module of the test's own, loaded by the tool worker threads beside the built-in ones:
 * while `broken` exists it throws as it loads, as a worker script broken by a deploy would, so
 * no tool thread can start.
 */
function brokenWhileMarked(dir: string): { file: string; broken: string } {
  const broken = join(dir, 'broken');
  const file = join(dir, 'breakable-worker.js');
  writeFileSync(
    file,
    `if (require('node:fs').existsSync(${JSON.stringify(broken)})) {
  throw new Error('cannot load: broken on purpose');
}
exports.WORKER_TOOL_EXECUTORS = {};
`,
  );
  return { file, broken };
}

describe('Tool worker threads that cannot start (e2e)', () => {
  let t: TestApp;
  let dir: string;
  let worker: { file: string; broken: string };
  const auth = bearer(tokenFor());
  const tools = toolRequests(
    () => t,
    () => auth,
  );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentline-worker-start-'));
    worker = brokenWhileMarked(dir);
    writeFileSync(worker.broken, '');
    t = await startApp(
      { TOOL_WORKER_THREADS: '1' },
      {
        tools: (config) => ({
          ...config,
          toolkits: [
            ...config.toolkits,
            {
              name: 'Breakable',
              worker: { file: worker.file, executors: {} },
              executors: () => ({}),
            },
          ],
        }),
      },
    );
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 busy with Retry-After while the thread cannot start, records nothing, and runs the tool once it can', async () => {
    const tool = await tools.attach('Math.Calculate');

    for (let attempt = 0; attempt < 3; attempt += 1) {
      const res = await tools.execute(tool.id, { expression: '6 * 7' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 503, code: 'busy' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(res.body)).not.toMatch(/broken on purpose|at .*\.js|\.ts:\d/);
    }
    expect((await tools.executions(tool.id)).total_count).toBe(0);

    // One log line for the whole run of failed starts, its message without a stack.
    const failures = t
      .logs()
      .split('\n')
      .filter((line) => line.includes('failed to start'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('broken on purpose');
    const metrics = await t.http().get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /agentline_worker_thread_start_failures_total\{pool="tools"\} [1-9]/,
    );
    expect(metrics.text).toMatch(
      /agentline_worker_tasks_refused_total\{pool="tools",reason="unavailable"\} [1-9]/,
    );

    rmSync(worker.broken);
    const ran = await eventually(async () => {
      const res = await tools.execute(tool.id, { expression: '6 * 7' });
      expect(res.status).toBe(200);
      return res.body.data as { status: string; output: { value: unknown } };
    }, 30_000);
    expect(ran).toMatchObject({ status: 'succeeded', output: { value: 42 } });
    expect((await tools.executions(tool.id)).total_count).toBe(1);
    expect(t.logs()).toContain('started after');
  }, 60_000);
});
