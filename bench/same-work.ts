/*
 * The work the baselines of bench/http.ts do, shared by the bare server (bench/bare-http.ts) and
 * the framework's floor (bench/nest-floor.ts), so that both do exactly the same: the HS256 check
 * with a prepared key, the body's checks, AES-256-GCM of the token, one parameterized INSERT with
 * a pg.Pool, the catalog's bytes. Configured by DATABASE_URL, JWT_SECRET, ENCRYPTION_KEY and
 * SPECS_FILE.
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
import { Pool } from 'pg';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const jwtKey = createSecretKey(Buffer.from(env('JWT_SECRET'), 'utf8'));
// Prepared once, as agentline's is (on Node 24 a raw Buffer key costs a caught throw per cipher).
const sealKey = createSecretKey(Buffer.from(env('ENCRYPTION_KEY'), 'base64'));
/** The bytes agentline answered for the catalog's default page. */
export const specs = readFileSync(env('SPECS_FILE'));
export const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
const ID = /^[A-Za-z0-9_-]+$/;

/** The organization of a valid HS256 token in an Authorization header, or undefined. */
export function organizationOf(header: string | undefined): string | undefined {
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

const validId = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max && ID.test(value);

/** The channel's fields when the body is exactly the three valid ones, else undefined. */
export function channelFields(
  body: Record<string, unknown> | undefined,
): { accessToken: string; agentId: string; numberId: string } | undefined {
  if (!body) return undefined;
  const { access_token: accessToken, agent_id: agentId, number_id: numberId } = body;
  if (
    !validId(accessToken, 4096) ||
    !validId(agentId, 200) ||
    !validId(numberId, 64) ||
    Object.keys(body).length !== 3
  ) {
    return undefined;
  }
  return { accessToken, agentId, numberId };
}

/** Seals the token, INSERTs the channel into agentline's table and answers its JSON body. */
export async function insertChannel(
  organization: string,
  { accessToken, agentId, numberId }: NonNullable<ReturnType<typeof channelFields>>,
): Promise<{ data: Record<string, unknown> }> {
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
