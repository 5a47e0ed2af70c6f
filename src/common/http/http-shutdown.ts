import type { Server, ServerResponse } from 'node:http';
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
import type { ServerSocket } from './http-server';

/**
 * The server's connections, so that a shutdown ends in bounded time. Node's `server.close()` alone
 * waits for every connection, and a connection that never sent a request (a browser's preconnect,
 * a load balancer's spare socket) is not idle to Node; once the server closes, Node also stops
 * enforcing the header time-out that would have ended it. One such socket held a SIGTERM until the
 * orchestrator killed the process. Only connections are tracked, not each response: a listener
 * per response would cost every request (and pushed streamed media past Node's 10 listeners).
 */
export class HttpConnections {
  private readonly connections = new Set<ServerSocket>();

  constructor(private readonly server: Server) {
    server.on('connection', (socket: ServerSocket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
  }

  /**
   * Stops accepting connections, closes at once those with no response in flight, lets the
   * responses in flight finish (each connection closes after its answer) and, past `timeoutMs`,
   * closes every connection left. Resolves when the server has closed.
   */
  close(timeoutMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      // Also when the server was not listening: then Node answers an error, and it is closed.
      this.server.close(() => resolve());
    });
    // A request that still comes (pipelined, or sent on a kept-alive connection before it closed)
    // is answered with `Connection: close`, after which Node closes its connection.
    this.server.on('request', (_request: unknown, response: ServerResponse) => {
      response.shouldKeepAlive = false;
    });
    for (const socket of this.connections) {
      const response = socket._httpMessage;
      if (!response) {
        socket.destroy();
        continue;
      }
      if (!response.headersSent) {
        response.shouldKeepAlive = false;
        continue;
      }
      closeAfterAnswers(socket, response);
    }
    const cutOff = setTimeout(() => {
      this.server.closeAllConnections();
      for (const socket of this.connections) socket.destroy();
    }, timeoutMs);
    return closed.finally(() => clearTimeout(cutOff));
  }
}

/**
 * Closes a connection whose keep-alive answer had begun once that answer is written (destroySoon,
 * as Node does for a last answer: it flushes first, and reads no further request), or, when
 * pipelined requests follow on it, once their answers are written too.
 */
function closeAfterAnswers(socket: ServerSocket, response: ServerResponse): void {
  response.once('close', () => {
    const next = socket._httpMessage;
    if (!next || next === response) socket.destroySoon();
    else closeAfterAnswers(socket, next);
  });
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
