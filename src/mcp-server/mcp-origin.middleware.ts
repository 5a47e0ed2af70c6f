import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { originOf } from '../common/http/cors';
import { problem, sendProblem } from '../common/http/problem';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MCP_SERVER_CONFIG, McpServerConfig } from './mcp-server.config';

/**
 * DNS rebinding (MCP transports, "Security Warning"): a browser page may call the endpoint only
 * from PUBLIC_URL's origin, one in MCP_ALLOWED_ORIGINS, or one in CORS_ORIGINS (trusted with
 * tokens for the whole API, so for its MCP endpoint too); any other `Origin` is 403 before the
 * token is looked at. Without `Origin` (every non-browser client) the request goes on.
 */
@Injectable()
export class McpOriginCheck implements NestMiddleware {
  private readonly allowed: ReadonlySet<string>;

  constructor(
    @Inject(APP_CONFIG) app: AppConfig,
    @Inject(MCP_SERVER_CONFIG) config: McpServerConfig,
  ) {
    this.allowed = new Set([
      new URL(app.publicUrl).origin,
      ...config.allowedOrigins,
      ...app.corsOrigins,
    ]);
  }

  use(request: Request, response: Response, next: NextFunction): void {
    const origin = request.headers.origin;
    if (origin === undefined || this.allowed.has(originOf(origin))) return next();
    sendProblem(
      response,
      problem(
        'forbidden',
        'This Origin may not call the MCP endpoint: it is neither PUBLIC_URL’s origin nor one of MCP_ALLOWED_ORIGINS or CORS_ORIGINS.',
      ),
    );
  }
}
