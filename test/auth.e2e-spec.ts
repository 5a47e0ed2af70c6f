import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createHmac, generateKeyPairSync, KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { bearer, startApp, TestApp, TEST_JWT_SECRET, tokenFor } from './support/test-app';

const now = () => Math.floor(Date.now() / 1000);

/** Every operation of the API, from the OpenAPI document the app serves. */
async function operations(t: TestApp): Promise<[string, string][]> {
  const doc = (await t.http().get('/v1/openapi.json').expect(200)).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method): [string, string] => [
      method,
      path.replace(/\{[^}]+\}/g, '00000000-0000-7000-8000-000000000000'),
    ]),
  );
}

describe('Authentication (e2e)', () => {
  describe('with an HS256 secret', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(async () => t.close());

    const get = (headers: Record<string, string>) => t.http().get('/v1/tools/specs').set(headers);

    it('denies every operation without a token (deny by default)', async () => {
      const ops = await operations(t);
      expect(ops.length).toBeGreaterThanOrEqual(7);
      for (const [method, path] of ops) {
        const res = await (
          t.http() as unknown as Record<
            string,
            (p: string) => Promise<{ status: number; body: { code: string } }>
          >
        )[method](path);
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
        expect(res.body.code).toBe('unauthorized');
      }
    });

    it('leaves only the documentation and health public', async () => {
      await t.http().get('/health').expect(200);
      await t.http().get('/v1/openapi.json').expect(200);
      await t
        .http()
        .get('/docs')
        .expect((res) => expect([200, 301]).toContain(res.status));
    });

    it('accepts a valid token', async () => {
      await get(bearer(tokenFor())).expect(200);
    });

    it.each([
      ['no Authorization header', {}],
      ['an empty header', { Authorization: '' }],
      ['a Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
      ['a bearer word without token', { Authorization: 'Bearer ' }],
      ['garbage', { Authorization: 'Bearer not.a.jwt' }],
      ['random base64', { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.abc' }],
    ])('answers 401 for %s', async (_name, headers) => {
      const res = await get(headers as Record<string, string>).expect(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).toMatchObject({ status: 401, code: 'unauthorized' });
    });

    it('answers 401 for a token signed with another key', async () => {
      const res = await get(
        bearer(tokenFor({ secret: 'another-secret-that-is-long-enough-0123456789' })),
      ).expect(401);
      expect(res.body.detail).toMatch(/signature/);
    });

    it('answers 401 for alg: none', async () => {
      const unsigned = jwt.sign({ sub: 'mallory', organization_id: 'org-1' }, '', {
        algorithm: 'none',
      });
      await get(bearer(unsigned)).expect(401);
    });

    it('answers 401 for an algorithm outside the allow-list (HS512)', async () => {
      const token = jwt.sign({ sub: 'u', organization_id: 'o' }, TEST_JWT_SECRET, {
        algorithm: 'HS512',
      });
      const res = await get(bearer(token)).expect(401);
      expect(res.body.detail).toMatch(/algorithm/);
    });

    it('answers 401 for an expired token, beyond the clock skew', async () => {
      const res = await get(bearer(tokenFor({ claims: { exp: now() - 120 } }))).expect(401);
      expect(res.body.detail).toBe('The token has expired.');
    });

    it('accepts a token expired within the clock skew', async () => {
      await get(bearer(tokenFor({ claims: { exp: now() - 5 } }))).expect(200);
    });

    it('answers 401 for a token not valid yet (nbf)', async () => {
      await get(bearer(tokenFor({ claims: { nbf: now() + 600 } }))).expect(401);
    });

    it('answers 401 without sub', async () => {
      const token = jwt.sign({ organization_id: 'org-1' }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        expiresIn: '1h',
      });
      const res = await get(bearer(token)).expect(401);
      expect(res.body.detail).toContain('sub');
    });

    it('answers 401 without the organization claim', async () => {
      const token = jwt.sign({}, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        subject: 'u',
        expiresIn: '1h',
      });
      const res = await get(bearer(token)).expect(401);
      expect(res.body.detail).toContain('organization_id');
    });

    it('answers 401 for an organization claim that is not a string', async () => {
      await get(bearer(tokenFor({ claims: { organization_id: 42 } }))).expect(401);
    });

    it('never logs the token', async () => {
      const token = tokenFor();
      await get(bearer(token)).expect(200);
      await get(bearer(`${token}x`)).expect(401);
      expect(t.logs()).not.toContain(token.split('.')[2]);
    });
  });

  describe('with issuer, audience and a custom organization claim', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({
        JWT_ISSUER: 'https://id.example.com/',
        JWT_AUDIENCE: 'agentline',
        JWT_ORGANIZATION_CLAIM: 'tenant',
      });
    });
    afterAll(async () => t.close());

    const sign = (claims: object, options: jwt.SignOptions = {}) =>
      jwt.sign({ tenant: 'org-t', ...claims }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        subject: 'u',
        expiresIn: '1h',
        issuer: 'https://id.example.com/',
        audience: 'agentline',
        ...options,
      });

    it('accepts the configured issuer, audience and claim', async () => {
      await t
        .http()
        .post('/v1/tools')
        .set(bearer(sign({})))
        .send({ agent_id: 'a', name: 'Math.Calculate' })
        .expect(201)
        .expect((res) => expect(res.body.data.organization_id).toBe('org-t'));
    });

    it('answers 401 for another issuer, another audience or the default claim only', async () => {
      await t
        .http()
        .get('/v1/tools/specs')
        .set(bearer(sign({}, { issuer: 'https://evil.example.com/' })))
        .expect(401);
      await t
        .http()
        .get('/v1/tools/specs')
        .set(bearer(sign({}, { audience: 'someone-else' })))
        .expect(401);
      const defaultClaim = jwt.sign({ organization_id: 'o' }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        subject: 'u',
        expiresIn: '1h',
        issuer: 'https://id.example.com/',
        audience: 'agentline',
      });
      await t.http().get('/v1/tools/specs').set(bearer(defaultClaim)).expect(401);
    });
  });

  describe('with an RS256 public key', () => {
    let t: TestApp;
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    beforeAll(async () => {
      t = await startApp({ JWT_SECRET: undefined, JWT_PUBLIC_KEY: publicPem });
    });
    afterAll(async () => t.close());

    it('accepts an RS256 token', async () => {
      const token = jwt.sign({ organization_id: 'o' }, privateKey, {
        algorithm: 'RS256',
        subject: 'u',
        expiresIn: '1h',
      });
      await t.http().get('/v1/tools/specs').set(bearer(token)).expect(200);
    });

    it('refuses an HS256 token signed with the public key (algorithm confusion)', async () => {
      const forged = forgeHs256({ sub: 'u', organization_id: 'o', exp: now() + 600 }, publicPem);
      await t.http().get('/v1/tools/specs').set(bearer(forged)).expect(401);
    });
  });

  describe('with a JWKS URL', () => {
    let t: TestApp;
    let jwks: Server;
    let jwksHits = 0;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

    beforeAll(async () => {
      jwks = createServer((_req, res) => {
        jwksHits++;
        const jwk = (publicKey as KeyObject).export({ format: 'jwk' });
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ keys: [{ ...jwk, kid: 'key-1', use: 'sig', alg: 'ES256' }] }));
      });
      await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
      const { port } = jwks.address() as AddressInfo;
      t = await startApp({
        JWT_SECRET: undefined,
        JWT_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      });
    });
    afterAll(async () => {
      await t.close();
      jwks.close();
    });

    const sign = (key: KeyObject, kid = 'key-1') =>
      jwt.sign({ organization_id: 'o' }, key, {
        algorithm: 'ES256',
        subject: 'u',
        expiresIn: '1h',
        keyid: kid,
      });

    it('accepts an ES256 token whose key the JWKS publishes, and caches the key set', async () => {
      await t
        .http()
        .get('/v1/tools/specs')
        .set(bearer(sign(privateKey)))
        .expect(200);
      await t
        .http()
        .get('/v1/tools/specs')
        .set(bearer(sign(privateKey)))
        .expect(200);
      expect(jwksHits).toBe(1);
    });

    it('answers 401 for a key id the JWKS does not have, or a key it does not match', async () => {
      await t
        .http()
        .get('/v1/tools/specs')
        .set(bearer(sign(privateKey, 'unknown')))
        .expect(401);
      await t
        .http()
        .get('/v1/tools/specs')
        .set(bearer(sign(otherKey)))
        .expect(401);
    });
  });
});

/** Builds an HS256 token by hand, as an attacker would, using the public key text as the secret. */
function forgeHs256(payload: object, secret: string): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(payload)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}
