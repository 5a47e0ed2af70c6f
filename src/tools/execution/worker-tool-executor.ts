import {
  WorkerOutOfMemory,
  WorkerPool,
  WorkerPoolBusy,
} from '../../common/worker-pool/worker-pool';
import { WorkerTaskError } from '../../common/worker-pool/worker-task';
import { ToolExecutionError, ToolExecutor } from './tool-executor';

/**
 * An executor that runs the tool `name` in `pool`'s threads. Only these fields of the context
 * cross to the thread: never the credentials (the CPU-bound tools need none).
 */
export function workerToolExecutor(pool: WorkerPool, name: string): ToolExecutor {
  return {
    async execute(input, context) {
      const { organizationId, agentId, toolId, toolCreatedBy, executedBy, timeoutMs, signal } =
        context;
      const crossing = { organizationId, agentId, toolId, toolCreatedBy, executedBy, timeoutMs };
      try {
        return await pool.run(name, input, { ...crossing, signal });
      } catch (error) {
        throw asToolFailure(error);
      }
    },
  };
}

/**
 * A worker task's failure as the tool failure the model reads (`output.error`): the tool's own
 * error from its thread, a full queue, a thread out of memory. Anything else is left as it is: a
 * bug stays a 500, a pool whose threads cannot start (WorkerPoolUnavailable) a `503 busy`.
 */
export function asToolFailure(error: unknown): unknown {
  if (error instanceof ToolExecutionError) return error;
  if (error instanceof WorkerPoolBusy) {
    return new ToolExecutionError('Too many tool executions are running; try again shortly.');
  }
  if (error instanceof WorkerOutOfMemory) {
    return new ToolExecutionError('The input needs more memory than a tool may use.');
  }
  if (error instanceof WorkerTaskError) return new ToolExecutionError(error.message);
  return error;
}
