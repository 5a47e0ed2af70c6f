import { JsonValue } from '../../common/json';
import { WorkerTaskError } from '../../common/worker-pool/worker-task';

/** A validated tool input: the parameters the spec declares, absent optional ones left out. */
export type ToolInput = Readonly<Record<string, JsonValue>>;

/** Where and for whom a tool runs; an executor acts within this tool attachment only. */
export interface ToolExecutionContext {
  organizationId: string;
  agentId: string;
  /** The tool attachment being executed. */
  toolId: string;
  /** Who attached the tool: agentline's own tools act in that subject's name. */
  toolCreatedBy: string;
  /** The JWT subject that asked for this execution. */
  executedBy: string;
  /** The attachment's decrypted `api_key`, for tools that need a secret. */
  apiKey?: string;
  /** A live OAuth2 access token, for tools with an OAuth2 provider. */
  accessToken?: string;
  /** Aborted when the execution times out; pass it to every outbound call. */
  signal: AbortSignal;
  timeoutMs: number;
}

/**
 * Runs one tool in-process and resolves to its output: anything JSON can carry (it is serialised
 * as JSON; `undefined` becomes null). Throw ToolExecutionError for a failure the caller should see.
 */
export interface ToolExecutor {
  execute(input: ToolInput, context: ToolExecutionContext): Promise<unknown>;
}

/**
 * A tool-level failure (bad argument, provider error): reported as `output.error` with a 200, so
 * that the model calling the tool can read it and try again. Anything else thrown is a bug (500).
 * A WorkerTaskError, so that one thrown in a worker thread crosses back as the task's failure.
 */
export class ToolExecutionError extends WorkerTaskError {
  constructor(message: string) {
    super(message);
    this.name = 'ToolExecutionError';
  }
}
