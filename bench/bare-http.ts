/*
 * The bare-stack baseline of the HTTP benchmark (bench/http.ts): `node:http` and `pg`, nothing
 * else, doing the work agentline does on the two measured routes, and no more:
 * - POST /v1/channels/whatsapp: HS256 JWT check (signature, exp, organization claim), the body's
 *   fields checked, the access token sealed with AES-256-GCM, one INSERT into the same table as
 *   agentline's (same schema, same unique indexes), a 201 with the channel;
 * - GET /v1/tools/specs: the JWT check, then the bytes agentline answered for the same page;
 * - GET /health: `{"status":"ok"}`, the floor of any answer.
 * Started by bench/http.ts with DATABASE_URL, JWT_SECRET, ENCRYPTION_KEY and SPECS_FILE; prints
 * `listening <port>` when ready.
 */
import {
  createCipheriv,
  createHmac,
  createSecretKey,
  randomBytes,
  randomUUID,
  timingSafeEqual,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
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

/** The organization of a valid HS256 token, or undefined. */
function organizationOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (!header?.startsWith('Bearer ')) return undefined;
  const [head, body, signature] = header.slice(7).split('.');
  if (!signature) return undefined;
  const expected = createHmac('sha256', jwtKey).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const { alg } = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
    exp?: number;
    organization_id?: string;
    sub?: string;
  };
  if (alg !== 'HS256' || !claims.exp || claims.exp * 1000 < Date.now() || !claims.sub) {
    return undefined;
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

function send(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

const validId = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max && ID.test(value);

async function createChannel(organization: string, raw: string, res: ServerResponse) {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return send(res, 400, '{"title":"Malformed JSON"}');
  }
  const { access_token: accessToken, agent_id: agentId, number_id: numberId } = body;
  if (
    !validId(accessToken, 4096) ||
    !validId(agentId, 200) ||
    !validId(numberId, 64) ||
    Object.keys(body).length !== 3
  ) {
    return send(res, 400, '{"title":"Validation failed"}');
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
  send(
    res,
    201,
    JSON.stringify({
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
    }),
  );
}

const HEALTHY = Buffer.from('{"status":"ok"}');

const server = createServer((req, res) => {
  // The floor of any answer: what agentline's GET /health answers, with no work at all.
  if (req.method === 'GET' && req.url === '/health') return send(res, 200, HEALTHY);
  const organization = organizationOf(req);
  if (!organization) return send(res, 401, '{"title":"Unauthorized"}');
  if (req.method === 'GET' && req.url?.startsWith('/v1/tools/specs')) return send(res, 200, specs);
  if (req.method !== 'POST' || req.url !== '/v1/channels/whatsapp') return send(res, 404, '{}');
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    createChannel(organization, Buffer.concat(chunks).toString('utf8'), res).catch(() =>
      send(res, 500, '{"title":"Internal error"}'),
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
});
