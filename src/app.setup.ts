import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Server } from 'node:http';
import {
  bodyParserErrors,
  parseJsonBody,
  parseRawWebhookBody,
  requireJsonBody,
  streamedBodies,
  WEBHOOK_PATH,
} from './common/http/body-parsing';
import { applyServerTimeouts } from './common/http/http-server';
import { problemContent } from './common/http/openapi.decorators';
import { accessLog } from './common/logging/access-log';
import { AppLogger, Loggers } from './common/logging/app-logger';
import { LOGGERS } from './common/logging/logging.module';
import { AppConfig } from './config/app-config';
import { APP_CONFIG } from './config/config.module';
import { httpMetrics, Metrics } from './metrics';
import { mountSandbox } from './sandbox';

const API_DESCRIPTION = `Tools, messaging channels and scheduled WhatsApp follow-ups for AI agents.

**Authentication.** Every \`/v1\` operation takes \`Authorization: Bearer <JWT>\`. On a laptop,
mint one with \`npm run token -- --org acme --sub alice\` (or \`docker compose exec agentline
node dist/src/cli/token.js --org acme --sub alice\`); in production your identity provider issues
them (JWT_PUBLIC_KEY or JWT_JWKS_URL). Press **Authorize** and paste the token: it is kept across
reloads of this page.

**Errors** are RFC 9457 problem details with a stable \`code\` and the request's \`request_id\`.
**Retries**: the POSTs that create or send take an \`Idempotency-Key\`.
**Rate limit**: per organization; every answer carries \`RateLimit-*\` headers, \`429\` with \`Retry-After\` past it.`;

/** Uploads read their multipart body as it arrives (see WhatsappMediaUploadService). */
const STREAMED_BODY_ROUTES = [
  { method: 'POST', path: /^\/v1\/channels\/whatsapp\/[^/]+\/media\/?$/ },
];

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('agentline')
    .setDescription(API_DESCRIPTION)
    .setVersion('1.0.0')
    .addServer(app.get<AppConfig>(APP_CONFIG).publicUrl)
    .addTag(
      'tools',
      'The tool catalog, tools attached to agents, their authorization and execution.',
    )
    .addTag(
      'channels',
      'WhatsApp numbers and Messenger pages bound to an agent; sending now; conversations.',
    )
    .addTag(
      'scheduler',
      'Follow-ups: recurring messages to a list of clients, and their deliveries.',
    )
    .addTag('webhooks', "Meta's webhook callbacks (public, signed by Meta).")
    .addTag(
      'sandbox',
      'The built-in Meta sandbox (META_SANDBOX=true): simulated clients writing to sandbox channels.',
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  // package.json's "UNLICENSED": private, no public license (setLicense would demand a URL).
  config.info.license = { name: 'UNLICENSED (private)' };
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controller, method) => method,
  });
  documentRateLimit(document);
  return document;
}

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': 'Requests allowed per window (one minute) for the organization.',
  'RateLimit-Remaining': 'Requests left in the current window.',
  'RateLimit-Reset': 'Seconds until the window ends.',
};

/**
 * Every operation behind the rate limit (all but Meta's webhooks) may answer 429 with
 * Retry-After, and every answer carries the RateLimit-* headers; each may also answer 500, and 503
 * while the database is away: added here once rather than on each of the operations.
 */
function documentRateLimit(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (path.startsWith('/v1/webhooks')) {
      // Public: Meta signs its calls instead (X-Hub-Signature-256); said, not left implicit.
      for (const operation of [item.get, item.post]) if (operation) operation.security = [];
      continue;
    }
    for (const method of ['get', 'post', 'put', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (!operation) continue;
      operation.responses['429'] ??= {
        description:
          "Too many requests for the organization (or, without a token, the client's address): retry after Retry-After seconds.",
        headers: {
          'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
          ...Object.fromEntries(
            Object.entries(RATE_LIMIT_HEADERS).map(([name, description]) => [
              name,
              { description, schema: { type: 'integer' } },
            ]),
          ),
        },
        content: problemContent(429),
      };
      operation.responses['500'] ??= {
        description:
          'An unexpected error: it is logged under the request_id; no stack trace or secret is answered.',
        content: problemContent(500),
      };
      operation.responses['503'] ??= {
        description:
          "The database cannot be reached (`database_unavailable`), or a worker thread is busy or cannot start (`busy`: the scheduler's, on follow-up creation and the schedule preview; a tool's, on tool execution): retry after Retry-After seconds.",
        headers: {
          'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
        },
        content: problemContent(503),
      };
    }
  }
}

/**
 * Everything main.ts applies to the Nest application besides AppModule: body parsing with its
 * limits, server time-outs and client-error answers, OpenAPI, logging and shutdown hooks. Tests
 * call it too, so they run what production runs.
 */
export function configureApp(app: INestApplication): void {
  app.useLogger(app.get(AppLogger));
  app.enableShutdownHooks();
  applyServerTimeouts(app.getHttpServer() as Server, app.get<AppConfig>(APP_CONFIG).http);
  const http = app.getHttpAdapter().getInstance();
  http.disable('x-powered-by');
  http.set('query parser', 'simple');
  // Whose X-Forwarded-For to believe for req.ip (rate limits per client address); none by default.
  http.set('trust proxy', app.get<AppConfig>(APP_CONFIG).trustProxy);
  app.use(accessLog(app.get<Loggers>(LOGGERS).access));
  app.use(httpMetrics(app.get(Metrics)));
  // The sandbox's stand-in for Graph (only with META_SANDBOX=true) reads its own bodies.
  mountSandbox(app);
  app.use(WEBHOOK_PATH, parseRawWebhookBody, bodyParserErrors);
  app.use(streamedBodies(STREAMED_BODY_ROUTES), requireJsonBody, parseJsonBody, bodyParserErrors);
  // Built on the first request for it, not at boot (about a tenth of the start-up time).
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'v1/openapi.json',
    // The token pasted into Authorize survives a reload of the page.
    swaggerOptions: { persistAuthorization: true },
  });
}
