import { Agent } from 'undici';

/**
 * What every client of a third party (Graph API, LLM endpoint, tool providers) shares: one
 * keep-alive undici agent with time-outs, and the reading of the errors it throws.
 */
export function keepAliveAgent(options: {
  timeoutMs: number;
  connections: number;
  maxResponseBytes: number;
}): Agent {
  return new Agent({
    connections: options.connections,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { timeout: options.timeoutMs },
    maxResponseSize: options.maxResponseBytes,
  });
}

const TIMEOUT_ERROR_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export interface OutboundError {
  name?: string;
  code?: string;
  message: string;
  /** An AbortSignal time-out or one of undici's own time-outs. */
  timedOut: boolean;
}

/** Duck-typed: errors from AbortSignal are DOMExceptions, not always `instanceof Error` (jest realms). */
export function describeOutboundError(error: unknown): OutboundError {
  if (typeof error !== 'object' || error === null) {
    return { message: String(error), timedOut: false };
  }
  const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown };
  const errorName = typeof name === 'string' ? name : undefined;
  const errorCode = typeof code === 'string' ? code : undefined;
  return {
    name: errorName,
    code: errorCode,
    message: typeof message === 'string' ? message : String(error),
    timedOut:
      errorName === 'TimeoutError' ||
      (errorCode !== undefined && TIMEOUT_ERROR_CODES.has(errorCode)),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
