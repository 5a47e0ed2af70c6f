import { WorkerInput, WorkerTaskContext } from './worker-task';

/** What a worker thread runs: one task, with its caller's context less the abort signal. */
export interface WorkerTaskMessage {
  name: string;
  input: WorkerInput;
  context: WorkerTaskContext;
}

/** What a worker thread answers: ready once loaded, then one answer per task. */
export type WorkerAnswer =
  | { kind: 'ready' }
  | { kind: 'value'; value: unknown }
  | { kind: 'task_error'; message: string }
  | { kind: 'error'; message: string; stack?: string };
