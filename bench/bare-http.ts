/*
 * The bare-stack baseline of the HTTP benchmark (bench/http.ts): `node:http` and `pg`, nothing
 * else, doing the work agentline does on the two measured routes, and no more (bench/same-work.ts):
 * - POST /v1/channels/whatsapp: HS256 JWT check (signature, exp, organization claim), the body's
 *   fields checked, the access token sealed with AES-256-GCM, one INSERT into the same table as
 *   agentline's (same schema, same unique indexes), a 201 with the channel;
 * - GET /v1/tools/specs: the JWT check, then the bytes agentline answered for the same page;
 * - GET /health: `{"status":"ok"}`, the floor of any answer.
 * Started by bench/http.ts with DATABASE_URL, JWT_SECRET, ENCRYPTION_KEY and SPECS_FILE; prints
 * `listening <port>` when ready.
 */
import { createServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { channelFields, insertChannel, organizationOf, pool, specs } from './same-work';

function send(res: ServerResponse, status: number, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

async function createChannel(organization: string, raw: string, res: ServerResponse) {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return send(res, 400, '{"title":"Malformed JSON"}');
  }
  const fields = channelFields(body);
  if (!fields) return send(res, 400, '{"title":"Validation failed"}');
  send(res, 201, JSON.stringify(await insertChannel(organization, fields)));
}

const HEALTHY = Buffer.from('{"status":"ok"}');

const server = createServer((req, res) => {
  // The floor of any answer: what agentline's GET /health answers, with no work at all.
  if (req.method === 'GET' && req.url === '/health') return send(res, 200, HEALTHY);
  const organization = organizationOf(req.headers.authorization);
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
