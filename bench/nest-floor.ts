/*
 * The floor of the framework, for bench/http.ts: a minimal Nest application on Express doing the
 * same work as the bare server (bench/bare-http.ts) on the measured routes, and nothing else (no
 * guard, pipe, interceptor, filter, logging or metrics; Express's `etag` and `x-powered-by` off).
 * Between it and the bare `node:http` server lies what the framework costs; between it and
 * agentline, what agentline adds. One controller:
 * - POST /v1/channels/whatsapp: the HS256 check with a prepared key (the bare server's checks),
 *   the body as Nest's default parser reads it, the bare server's validation, AES-256-GCM of the
 *   token, one parameterized INSERT with a pg.Pool, a 201 with the channel;
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
import {
  createCipheriv,
  createHmac,
  createSecretKey,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const jwtKey = createSecretKey(Buffer.from(env('JWT_SECRET'), 'utf8'));
const sealKey = Buffer.from(env('ENCRYPTION_KEY'), 'base64');
const specs = readFileSync(env('SPECS_FILE'));
const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const ID = /^[A-Za-z0-9_-]+$/;

/** The organization of a valid HS256 token (the bare server's checks); 401 otherwise. */
function organizationOf(header: string | undefined): string {
  if (!header?.startsWith('Bearer ')) throw new UnauthorizedException();
  const [head, body, signature] = header.slice(7).split('.');
  if (!signature) throw new UnauthorizedException();
  const expected = createHmac('sha256', jwtKey).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new UnauthorizedException();
  }
  const { alg } = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
    exp?: number;
    organization_id?: string;
    sub?: string;
  };
  if (
    alg !== 'HS256' ||
    !claims.exp ||
    claims.exp * 1000 < Date.now() ||
    !claims.sub ||
    !claims.organization_id
  ) {
    throw new UnauthorizedException();
  }
  return claims.organization_id;
}

function seal(plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', 'k', iv, cipher.getAuthTag(), body]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

const validId = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max && ID.test(value);

@Controller()
class FloorController {
  @Get('health')
  health(): { status: string } {
    return { status: 'ok' };
  }

  @Get('v1/tools/specs')
  toolSpecs(@Headers('authorization') authorization: string | undefined, @Res() res: Response) {
    organizationOf(authorization);
    res.type('application/json').send(specs);
  }

  @Post('v1/channels/whatsapp')
  async createChannel(
    @Headers('authorization') authorization: string | undefined,
    @Body() body: Record<string, unknown> | undefined,
  ) {
    const organization = organizationOf(authorization);
    const { access_token: accessToken, agent_id: agentId, number_id: numberId } = body ?? {};
    if (
      !body ||
      !validId(accessToken, 4096) ||
      !validId(agentId, 200) ||
      !validId(numberId, 64) ||
      Object.keys(body).length !== 3
    ) {
      throw new BadRequestException('Validation failed');
    }
    const id = randomUUID();
    const now = new Date();
    const verificationToken = randomBytes(24).toString('base64url');
    await pool.query(
      `INSERT INTO whatsapp_channels (id, organization_id, agent_id, number_id, access_token_encrypted,
         status, verification_token, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'active', $6, 'bench', $7, $7)`,
      [
        id,
        organization,
        agentId,
        numberId,
        seal(accessToken, `whatsapp_channels:${id}:access_token`),
        verificationToken,
        now,
      ],
    );
    return {
      data: {
        id,
        agent_id: agentId,
        number_id: numberId,
        status: 'active',
        type: 'Whatsapp',
        organization_id: organization,
        created_by: 'bench',
        verification_token: verificationToken,
        webhook_url: `http://127.0.0.1/v1/webhooks/whatsapp/${id}`,
        status_reason: null,
        created_at: now.getTime(),
        updated_at: now.getTime(),
      },
    };
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
