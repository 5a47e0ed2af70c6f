/**
 * A tool worker thread: runs CPU_TOOL_EXECUTORS one task at a time. Loaded by ToolWorkerPool,
 * from dist/ as JavaScript or, under ts-node and jest, as TypeScript.
 */
import { parentPort } from 'node:worker_threads';
import { ToolExecutionError } from '../tool-executor';
import { CPU_TOOL_EXECUTORS } from './cpu-tool-executors';
import { ToolWorkerMessage, ToolWorkerTask } from './tool-worker.messages';

const port = parentPort;
if (!port) throw new Error('tool-worker.entry runs in a worker thread only');

// Never aborted: a task that runs too long is stopped by terminating the thread.
const signal = new AbortController().signal;

port.on('message', (task: ToolWorkerTask) => {
  void run(task).then((message) => port.postMessage(message));
});
port.postMessage({ kind: 'ready' } satisfies ToolWorkerMessage);

async function run(task: ToolWorkerTask): Promise<ToolWorkerMessage> {
  const executor = CPU_TOOL_EXECUTORS[task.name];
  try {
    if (!executor) throw new Error(`No worker executor for ${task.name}`);
    const value = await executor.execute(task.input, { ...task.context, signal });
    return { kind: 'value', value };
  } catch (error) {
    if (error instanceof ToolExecutionError) return { kind: 'tool_error', message: error.message };
    const failure = error instanceof Error ? error : new Error(String(error));
    return { kind: 'error', message: failure.message, stack: failure.stack };
  }
}
