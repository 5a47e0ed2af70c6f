import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Server } from 'node:http';
import { documentAgentEvents } from './agent-events';
import { CHANNEL_AGENT_EVENTS } from './channels';
import {
  bodyParserErrors,
  parseJsonBody,
  parseRawWebhookBody,
  requireJsonBody,
  streamedBodies,
  WEBHOOK_PATH,
} from './common/http/body-parsing';
import { cors } from './common/http/cors';
import { applyServerTimeouts } from './common/http/http-server';
import { problemContent } from './common/http/openapi.decorators';
import { OPENAPI_VERSION, toOpenApi31 } from './common/http/openapi-31';
import { accessLog } from './common/logging/access-log';
import { AppLogger, Loggers } from './common/logging/app-logger';
import { LOGGERS } from './common/logging/logging.module';
import { AppConfig } from './config/app-config';
import { APP_CONFIG } from './config/config.module';
import { httpMetrics, Metrics } from './metrics';
import { mountSandbox } from './sandbox';
import { DELIVERY_AGENT_EVENTS } from './scheduler';

const API_DESCRIPTION = `Tools, messaging channels and scheduled WhatsApp follow-ups for AI agents.

**Authentication.** Every \`/v1\` operation takes \`Authorization: Bearer <JWT>\`. On a laptop,
mint one with \`npm run token -- --org acme --sub alice\` (or \`docker compose exec agentline
node dist/src/cli/token.js --org acme --sub alice\`); in production your identity provider issues
them (JWT_PUBLIC_KEY or JWT_JWKS_URL). Press **Authorize** and paste the token: it is kept across
reloads of this page.

**Errors** are RFC 9457 problem details with a stable \`code\` and the request's \`request_id\`.
**Retries**: the POSTs that create or send take an \`Idempotency-Key\`.
**Rate limit**: per organization; answers say where the caller stands in \`RateLimit-Policy\` and \`RateLimit\` (the IETF draft's structured fields), \`429\` with \`Retry-After\` past it; a \`401\` counts against the failed authentications of the client's address, and says so in the same fields.`;

/** Uploads read their multipart body as it arrives (see WhatsappMediaUploadService). */
const STREAMED_BODY_ROUTES = [
  { method: 'POST', path: /^\/v1\/channels\/whatsapp\/[^/]+\/media\/?$/ },
];

/** The title of the document and of the Swagger UI tab. */
const API_TITLE = 'agentline API';

const BEARER_DESCRIPTION = `A JWT with your organization claim (\`organization_id\` by default) and \`sub\`. On a laptop: \`npm run token -- --org acme --sub alice\` prints one (the service prints the same hint at start-up); in production your identity provider issues it (JWT_PUBLIC_KEY or JWT_JWKS_URL). Paste the token alone, without "Bearer".`;

/** Every agent event type, documented by the module that emits it. */
const AGENT_EVENTS = documentAgentEvents({ ...CHANNEL_AGENT_EVENTS, ...DELIVERY_AGENT_EVENTS });

/** `/agentline` for https://host/agentline (no trailing slash), `/` for a URL without a path. */
function publicPath(publicUrl: string): string {
  return new URL(publicUrl).pathname.replace(/\/+$/, '') || '/';
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setTitle(API_TITLE)
    .setDescription(API_DESCRIPTION)
    .setVersion('1.0.0')
    // Relative: Swagger UI calls the host it was opened at (127.0.0.1, localhost, a proxy's name),
    // under PUBLIC_URL's path when a proxy serves agentline under one (and strips it).
    .addServer(
      publicPath(app.get<AppConfig>(APP_CONFIG).publicUrl),
      'The host that serves this document',
    )
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
    .addTag(
      'agent events',
      'What agentline POSTs to AGENT_EVENTS_URL (the webhooks below): signed per Standard Webhooks.',
    )
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: BEARER_DESCRIPTION,
    })
    .build();
  // package.json's "UNLICENSED": private, no public license (setLicense would demand a URL).
  config.info.license = { name: 'UNLICENSED (private)' };
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controller, method) => method,
    extraModels: AGENT_EVENTS.extraModels,
  });
  documentRateLimit(document);
  AGENT_EVENTS.addWebhooks(document);
  return toOpenApi31(document);
}

/**
 * The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers-11), defined once under
 * components.headers; the answers of every operation behind a limit refer to them.
 */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The quota this answer counted against, a structured field (List): its name, `q` requests per window of `w` seconds. `"organization"` for a caller with a token (RATE_LIMIT_PER_MINUTE, one budget across all routes), `"client-address"` for a public route without one, `"auth-failures"` on a `401` and on the `429` of failed authentications (AUTH_FAILURE_LIMIT_PER_MINUTE per client address). Counted per process.',
    schema: { type: 'string' },
    example: '"organization";q=1200;w=60',
  },
  RateLimit: {
    description:
      'Where the caller stands in that quota, a structured field (List): `r` requests left, `t` seconds until the window ends.',
    schema: { type: 'string' },
    example: '"organization";r=1199;t=60',
  },
} as const;

const rateLimitHeaderRefs = () =>
  Object.fromEntries(
    Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );

/**
 * Every operation behind the rate limit (all but Meta's webhooks) may answer 429 with
 * Retry-After; its successes and its 401 say where the caller stands (RateLimit-Policy,
 * RateLimit); each may also answer 500, and 503 while the database is away: added here once
 * rather than on each of the operations.
 */
function documentRateLimit(document: OpenAPIObject): void {
  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, ...RATE_LIMIT_HEADERS },
  };
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
          "Too many requests for the organization (or, without a token, the client's address), or too many failed authentications from the client's address: retry after Retry-After seconds.",
        headers: {
          'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } },
          ...rateLimitHeaderRefs(),
        },
        content: problemContent(429),
      };
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || !/^2|^401$/.test(status) || '$ref' in response) continue;
        response.headers = { ...response.headers, ...rateLimitHeaderRefs() };
      }
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
  // Before the routes, the token and the rate limit: a preflight carries none of them.
  app.use(cors(app.get<AppConfig>(APP_CONFIG).corsOrigins));
  // The sandbox's stand-in for Graph (only with META_SANDBOX=true) reads its own bodies.
  mountSandbox(app);
  app.use(WEBHOOK_PATH, parseRawWebhookBody, bodyParserErrors);
  app.use(streamedBodies(STREAMED_BODY_ROUTES), requireJsonBody, parseJsonBody, bodyParserErrors);
  // Built on the first request for it, not at boot (about a tenth of the start-up time).
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'v1/openapi.json',
    customSiteTitle: API_TITLE,
    // The token pasted into Authorize survives a reload of the page.
    swaggerOptions: { persistAuthorization: true },
  });
}
