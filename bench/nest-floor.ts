/*
 * The floor of the framework, for bench/http.ts: a minimal Nest application on Express doing the
 * same work as the bare server (bench/bare-http.ts) on the measured routes, and nothing else (no
 * guard, pipe, interceptor, filter, logging or metrics; Express's `etag` and `x-powered-by` off).
 * Between it and the bare `node:http` server lies what the framework costs; between it and
 * agentline, what agentline adds. One controller:
 * - POST /v1/channels/whatsapp: the HS256 check with a prepared key (the bare server's checks),
 *   the body as Nest's default parser reads it, the bare server's validation, AES-256-GCM of the
 *   token, one parameterized INSERT with a pg.Pool, a 201 with the channel (bench/same-work.ts);
 * - GET /v1/tools/specs: the HS256 check, then the catalog's own bytes (SPECS_FILE);
 * - GET /health: `{"status":"ok"}`.
 * Started by bench/http.ts with DATABASE_URL, JWT_SECRET, ENCRYPTION_KEY and SPECS_FILE; prints
 * `listening <port>` when ready.
 */
import 'reflect-metadata';
import {
  BadRequestException,
  Body,
  Controller,
  Get,
  Headers,
  Module,
  Post,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Response } from 'express';
import type { AddressInfo } from 'node:net';
import { channelFields, insertChannel, organizationOf, pool, specs } from './same-work';

/** The organization of a valid HS256 token (the bare server's checks); 401 otherwise. */
function organizationOrRefuse(header: string | undefined): string {
  const organization = organizationOf(header);
  if (!organization) throw new UnauthorizedException();
  return organization;
}

@Controller()
class FloorController {
  @Get('health')
  health(): { status: string } {
    return { status: 'ok' };
  }

  @Get('v1/tools/specs')
  toolSpecs(@Headers('authorization') authorization: string | undefined, @Res() res: Response) {
    organizationOrRefuse(authorization);
    res.type('application/json').send(specs);
  }

  @Post('v1/channels/whatsapp')
  async createChannel(
    @Headers('authorization') authorization: string | undefined,
    @Body() body: Record<string, unknown> | undefined,
  ) {
    const organization = organizationOrRefuse(authorization);
    const fields = channelFields(body);
    if (!fields) throw new BadRequestException('Validation failed');
    return insertChannel(organization, fields);
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, { logger: false });
  app.disable('etag');
  app.disable('x-powered-by');
  app.getHttpServer().keepAliveTimeout = 60_000;
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  process.stdout.write(`listening ${port}\n`);
  process.on('SIGTERM', () => {
    void app.close().then(() => pool.end());
  });
}

void main();
