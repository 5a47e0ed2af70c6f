import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';

/**
 * The server's connections and the responses each carries, so that a shutdown ends in bounded
 * time. Node's `server.close()` alone waits for every connection, and a connection that never sent
 * a request (a browser's preconnect, a load balancer's spare socket) is not idle to Node; once the
 * server closes, Node also stops enforcing the header time-out that would have ended it. One such
 * socket held a SIGTERM until the orchestrator killed the process.
 */
export class HttpConnections {
  /** Each open connection and the responses in flight on it. */
  private readonly connections = new Map<Socket, Set<ServerResponse>>();
  private closing = false;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, new Set());
      socket.once('close', () => this.connections.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      const responses = this.connections.get(socket);
      if (!responses) return;
      responses.add(response);
      if (this.closing) closeAfter(response);
      response.once('close', () => {
        responses.delete(response);
        // Ended once its last answer is written (end, not destroy: the answer is still flushing).
        if (this.closing && responses.size === 0) socket.end();
      });
    });
  }

  /**
   * Stops accepting connections, closes at once those with no response in flight, lets the
   * responses in flight finish (their connections close after them) and, past `timeoutMs`, closes
   * every connection left. Resolves when the server has closed.
   */
  close(timeoutMs: number): Promise<void> {
    this.closing = true;
    const closed = new Promise<void>((resolve) => {
      // Also when the server was not listening: then Node answers an error, and it is closed.
      this.server.close(() => resolve());
    });
    for (const [socket, responses] of this.connections) {
      if (responses.size === 0) socket.destroy();
      else for (const response of responses) closeAfter(response);
    }
    const cutOff = setTimeout(() => this.server.closeAllConnections(), timeoutMs);
    return closed.finally(() => clearTimeout(cutOff));
  }
}

/** A response not yet begun says `Connection: close`, so the client sends no more on it. */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.shouldKeepAlive = false;
}

/**
 * Closes the HTTP server at the start of a shutdown (so that it drains while the other modules
 * stop), within HTTP_SHUTDOWN_TIMEOUT_MS, and holds the shutdown until it has closed.
 */
@Injectable()
export class HttpShutdown
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown
{
  private connections?: HttpConnections;
  private closed?: Promise<void>;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    // An application context without HTTP (the CLI's) has no server.
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (server) this.connections = new HttpConnections(server);
  }

  onModuleDestroy(): void {
    this.closed = this.connections?.close(this.config.http.shutdownTimeoutMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.closed;
  }
}
