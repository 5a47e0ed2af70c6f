/**
 * A worker thread: runs the executors of its worker modules (each exports
 * WORKER_TOOL_EXECUTORS) one task at a time. Loaded by WorkerPool, from dist/ as JavaScript or,
 * under ts-node and jest, as TypeScript.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WorkerAnswer, WorkerTaskMessage } from './worker.messages';
import { WorkerExecutor, WorkerTaskError } from './worker-task';

const port = parentPort;
if (!port) throw new Error('worker.entry runs in a worker thread only');

const executors: Record<string, WorkerExecutor> = {};
for (const file of (workerData as { modules: string[] }).modules) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(file) as { WORKER_TOOL_EXECUTORS: Record<string, WorkerExecutor> };
  Object.assign(executors, loaded.WORKER_TOOL_EXECUTORS);
}

// Never aborted: a task that runs too long is stopped by terminating the thread.
const signal = new AbortController().signal;

port.on('message', (task: WorkerTaskMessage) => {
  void run(task).then((message) => port.postMessage(message));
});
port.postMessage({ kind: 'ready' } satisfies WorkerAnswer);

async function run(task: WorkerTaskMessage): Promise<WorkerAnswer> {
  const executor = executors[task.name];
  try {
    if (!executor) throw new Error(`No worker executor for ${task.name}`);
    const value = await executor.execute(task.input, { ...task.context, signal });
    return { kind: 'value', value };
  } catch (error) {
    if (error instanceof WorkerTaskError) return { kind: 'task_error', message: error.message };
    const failure = error instanceof Error ? error : new Error(String(error));
    return { kind: 'error', message: failure.message, stack: failure.stack };
  }
}
