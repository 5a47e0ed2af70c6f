import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { Server } from 'node:http';
import {
  bodyParserErrors,
  parseJsonBody,
  parseRawWebhookBody,
  requireJsonBody,
  WEBHOOK_PATH,
} from './common/http/body-parsing';
import { applyServerTimeouts } from './common/http/http-server';
import { accessLog } from './common/logging/access-log';
import { AppLogger, Loggers } from './common/logging/app-logger';
import { LOGGERS } from './common/logging/logging.module';
import { AppConfig } from './config/app-config';
import { APP_CONFIG } from './config/config.module';
import { httpMetrics } from './metrics/http-metrics';
import { Metrics } from './metrics/metrics';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('agentline')
    .setDescription(
      'Tools, messaging channels and scheduled WhatsApp follow-ups for AI agents. ' +
        'Every /v1 operation takes `Authorization: Bearer <JWT>`; errors are RFC 9457 problem details.',
    )
    .setVersion('1.0.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  return SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controller, method) => method,
  });
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
  app.use(WEBHOOK_PATH, parseRawWebhookBody, bodyParserErrors);
  app.use(requireJsonBody, parseJsonBody, bodyParserErrors);
  // Built on the first request for it, not at boot (about a tenth of the start-up time).
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'v1/openapi.json',
  });
}
