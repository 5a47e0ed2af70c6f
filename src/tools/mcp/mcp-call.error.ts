import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * `mcp_timeout`: no answer within the time-out (the request is cancelled on the server);
 * `mcp_unavailable`: the server is unknown, not connected, or the connection broke;
 * `mcp_error`: the server (or the SDK checking its answer) rejected the call.
 * A tool that runs and reports failure is not an exception: `call` answers `{ error }`.
 */
export const MCP_CALL_ERROR_CODES = ['mcp_timeout', 'mcp_unavailable', 'mcp_error'] as const;
export type McpCallErrorCode = (typeof MCP_CALL_ERROR_CODES)[number];

export class McpCallError extends Error {
  override readonly name = 'McpCallError';

  constructor(
    readonly code: McpCallErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Classifies what the SDK threw for one request to `server`. */
export function toMcpCallError(error: unknown, server: string): McpCallError {
  if (error instanceof McpCallError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof McpError) {
    if (error.code === Number(ErrorCode.RequestTimeout)) {
      return new McpCallError('mcp_timeout', `MCP server "${server}" did not answer in time`, {
        cause: error,
      });
    }
    if (error.code === Number(ErrorCode.ConnectionClosed)) {
      return unavailable(server, reason, error);
    }
    return new McpCallError('mcp_error', `MCP server "${server}": ${reason}`, { cause: error });
  }
  // HTTP status errors (an expired session, a 5xx), refused connections, a closed transport.
  if (error instanceof StreamableHTTPError || isTransportError(error)) {
    return unavailable(server, reason, error);
  }
  return new McpCallError('mcp_error', `MCP server "${server}": ${reason}`, { cause: error });
}

function unavailable(server: string, reason: string, cause: unknown): McpCallError {
  return new McpCallError('mcp_unavailable', `MCP server "${server}" is unavailable: ${reason}`, {
    cause,
  });
}

function isTransportError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    error.message === 'Not connected' ||
    // undici's fetch reports network failures as a TypeError.
    (error instanceof TypeError && error.message === 'fetch failed') ||
    (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code))
  );
}
