import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { problem, PROBLEM_CONTENT_TYPE } from './problem';

export interface HttpServerTimeouts {
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * Slow or stalled clients are cut off deliberately instead of at Node's defaults (a request could
 * take 300 s). Node checks these time-outs on a timer read at `listen`; it runs every 30 s by
 * default, far too coarse for a short time-out, so it follows the shortest one.
 */
export function applyServerTimeouts(server: Server, timeouts: HttpServerTimeouts): void {
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  const shortest = Math.min(timeouts.requestTimeoutMs, timeouts.headersTimeoutMs);
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.max(25, Math.min(1_000, Math.floor(shortest / 4)));
  server.on('clientError', answerClientError);
}

/** The errors Node's HTTP parser and timers raise before any request reaches Express. */
function clientProblem(code: string | undefined) {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problem('request_timeout', 'The request was not received in time.');
    case 'HPE_HEADER_OVERFLOW':
      return problem(
        'headers_too_large',
        'The request headers are too large (at most 16 KiB in all).',
      );
    default:
      return problem('bad_request', 'The request is not valid HTTP/1.1.');
  }
}

/** A connection of Node's HTTP server. */
export interface ServerSocket extends Socket {
  /** Node's response in flight on this connection, if any (what its own handlers check). */
  _httpMessage?: ServerResponse | null;
}

/**
 * Node's `clientError`, answered as problem+json like every other error. As Node's own handler
 * does, it writes only to a socket that can still take it and that carries no response already
 * begun, then closes the connection: after a parse error the stream cannot be trusted.
 */
export function answerClientError(error: Error & { code?: string }, socket: ServerSocket): void {
  if (error.code !== 'ECONNRESET' && socket.writable && !socket._httpMessage?.headersSent) {
    const details = clientProblem(error.code);
    const body = JSON.stringify(details);
    socket.end(
      `HTTP/1.1 ${details.status} ${details.title}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroySoon();
}
