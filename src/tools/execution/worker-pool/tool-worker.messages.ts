import { ToolExecutionContext, ToolInput } from '../tool-executor';

/** What a worker thread runs: one tool call. Credentials never cross (the CPU tools need none). */
export interface ToolWorkerTask {
  name: string;
  input: ToolInput;
  context: Omit<ToolExecutionContext, 'signal' | 'apiKey' | 'accessToken'>;
}

/** What a worker thread answers: ready once loaded, then one answer per task. */
export type ToolWorkerMessage =
  | { kind: 'ready' }
  | { kind: 'value'; value: unknown }
  | { kind: 'tool_error'; message: string }
  | { kind: 'error'; message: string; stack?: string };
