import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createHmac, generateKeyPairSync, KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ManualClock } from './support/manual-clock';
import { bearer, startApp, TestApp, TEST_JWT_SECRET, tokenFor } from './support/test-app';

const now = () => Math.floor(Date.now() / 1000);

/** Every operation of the API, from the OpenAPI document the app serves. */
/** The operations of the OpenAPI document: those that take a bearer token, or the public ones. */
async function operations(
  t: TestApp,
  which: 'bearer' | 'public' = 'bearer',
): Promise<[string, string][]> {
  const doc = (await t.http().get('/v1/openapi.json').expect(200)).body as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => (operation.security?.length ?? 0) > 0 === (which === 'bearer'))
      .map(([method]): [string, string] => [
        method,
        path.replace(/\{[^}]+\}/g, '00000000-0000-7000-8000-000000000000'),
      ]),
  );
}

describe('Authentication (e2e)', () => {
  describe('with an HS256 secret', () => {
    let t: TestApp;
    beforeAll(async () => {
      // These tests fail authentication far more than 30 times a minute from one address; the
      // failure limit has its own tests below.
      t = await startApp({ AUTH_FAILURE_LIMIT_PER_MINUTE: '1000' });
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
        // The sandbox's routes are off here (no META_SANDBOX): they answer 404 before the token
        // is looked at; with the sandbox on, sandbox.e2e-spec.ts checks their 401.
        const sandbox = path.startsWith('/sandbox/');
        const status = sandbox ? 404 : 401;
        expect({ method, path, status: res.status }).toEqual({ method, path, status });
        expect(res.body.code).toBe(sandbox ? 'not_found' : 'unauthorized');
      }
    });

    it("leaves only the documentation, health and Meta's webhooks public", async () => {
      // Meta's webhooks authenticate by the channel's verify token and the app secret's signature.
      expect(
        (await operations(t, 'public')).map(([method, path]) => `${method} ${path}`).sort(),
      ).toEqual([
        'get /v1/webhooks/messanger/00000000-0000-7000-8000-000000000000',
        'get /v1/webhooks/whatsapp/00000000-0000-7000-8000-000000000000',
        'post /v1/webhooks/messanger/00000000-0000-7000-8000-000000000000',
        'post /v1/webhooks/whatsapp/00000000-0000-7000-8000-000000000000',
      ]);
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

    it.each([
      ['something after the token', (token: string) => `Bearer ${token} garbage`],
      ['two spaces', (token: string) => `Bearer  ${token}`],
      ['a tab', (token: string) => `Bearer\t${token}`],
      ['a comma and a second credential', (token: string) => `Bearer ${token}, Basic dXNlcg==`],
      ['no space', (token: string) => `Bearer${token}`],
    ])('answers 401 for a Bearer header with %s', async (_name, header) => {
      const res = await get({ Authorization: header(tokenFor()) }).expect(401);
      expect(res.body.detail).toBe(
        'The Authorization header must be exactly `Bearer <JWT>`: one space, nothing after.',
      );
    });

    it('takes the scheme in any case (RFC 7235)', async () => {
      await get({ Authorization: `bearer ${tokenFor()}` }).expect(200);
      await get({ Authorization: `BEARER ${tokenFor()}` }).expect(200);
    });

    it('answers 401 for several Authorization headers, even when each is valid', async () => {
      const valid = `Bearer ${tokenFor()}`;
      for (const headers of [
        [valid, valid],
        [valid, 'Bearer garbage'],
        ['Bearer garbage', valid],
      ]) {
        const res = await t
          .http()
          .get('/v1/tools/specs')
          .set({ Authorization: headers })
          .expect(401);
        expect(res.body.detail).toBe('Send exactly one Authorization header.');
      }
    });

    it('answers 401 for a token without exp, naming it', async () => {
      const token = jwt.sign({ sub: 'u', organization_id: 'o' }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
      });
      const res = await get(bearer(token)).expect(401);
      expect(res.body.detail).toBe('The token has no `exp` claim; tokens must expire.');
    });

    it('answers 401 for a token issued in the future beyond the clock skew', async () => {
      const tenYears = 10 * 365 * 24 * 3600;
      const res = await get(bearer(tokenFor({ claims: { iat: now() + tenYears } }))).expect(401);
      expect(res.body.detail).toBe('The token was issued in the future (iat).');
      await get(bearer(tokenFor({ claims: { iat: now() + 120 } }))).expect(401);
      // Within the 30 s skew: a token minted by a clock slightly ahead of ours.
      await get(bearer(tokenFor({ claims: { iat: now() + 10 } }))).expect(200);
    });

    it('answers 401 for an iat that is not a number', async () => {
      const token = signHs256(
        { alg: 'HS256', typ: 'JWT' },
        { sub: 'u', organization_id: 'o', exp: now() + 600, iat: 'yesterday' },
        TEST_JWT_SECRET,
      );
      const res = await get(bearer(token)).expect(401);
      expect(res.body.detail).toBe('The token `iat` claim is not a number.');
    });

    it.each([
      ['an unknown extension', ['https://example.com/ext']],
      ['a registered parameter', ['exp']],
      ['an empty list', []],
      ['a value that is not a list', 'b64'],
    ])('answers 401 for a crit header with %s', async (_name, crit) => {
      const token = jwt.sign(
        { sub: 'u', organization_id: 'o', 'https://example.com/ext': true },
        TEST_JWT_SECRET,
        { algorithm: 'HS256', expiresIn: '1h', header: { alg: 'HS256', crit } as jwt.JwtHeader },
      );
      const res = await get(bearer(token)).expect(401);
      expect(res.body.detail).toBe(
        'The token header lists critical extensions (`crit`) that are not supported.',
      );
    });

    it.each([
      ['a NUL byte in sub', { sub: 'user\u0000admin' }, '`sub`'],
      ['a line feed in sub', { sub: 'user\nadmin' }, '`sub`'],
      ['a NUL byte in the organization claim', { org: 'org\u0000' }, '`organization_id`'],
      ['an escape in the organization claim', { org: 'org\u001b[31m' }, '`organization_id`'],
      ['a C1 control in the organization claim', { org: 'org\u0085' }, '`organization_id`'],
    ])('answers 401 for %s', async (_name, identity, claimName) => {
      const res = await get(bearer(tokenFor(identity))).expect(401);
      expect(res.body).toMatchObject({ status: 401, code: 'unauthorized' });
      expect(res.body.detail).toBe(`The token ${claimName} claim contains a control character.`);
    });

    it('accepts any other Unicode in sub and the organization claim', async () => {
      await t
        .http()
        .post('/v1/tools')
        .set(bearer(tokenFor({ sub: 'José 🚀', org: 'organización-ü' })))
        .send({ agent_id: 'a', name: 'Math.Calculate' })
        .expect(201)
        .expect((res) =>
          expect(res.body.data).toMatchObject({
            created_by: 'José 🚀',
            organization_id: 'organización-ü',
          }),
        );
    });

    it('never logs the token', async () => {
      const token = tokenFor();
      await get(bearer(token)).expect(200);
      await get(bearer(`${token}x`)).expect(401);
      expect(t.logs()).not.toContain(token.split('.')[2]);
    });
  });

  describe('failed authentication, limited per client address behind a trusted proxy', () => {
    let t: TestApp;
    const clock = new ManualClock();
    beforeAll(async () => {
      t = await startApp(
        // The test speaks from 127.0.0.1, so X-Forwarded-For names the client.
        { AUTH_FAILURE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'loopback' },
        { clock },
      );
    });
    afterAll(async () => t.close());

    const from = (address: string, authorization?: string) => {
      const req = t.http().get('/v1/tools/specs').set('X-Forwarded-For', address);
      return authorization === undefined ? req : req.set('Authorization', authorization);
    };
    const valid = () => `Bearer ${tokenFor()}`;

    it('answers 429 with Retry-After to failing requests once an address failed the limit, until its minute is over', async () => {
      const client = '203.0.113.10';
      // Each 401 says where the address stands in the limit it counted against (the IETF
      // draft's RateLimit-Policy and RateLimit).
      const first = await from(client, 'Bearer not.a.jwt').expect(401);
      expect(first.headers['ratelimit-policy']).toBe('"auth-failures";q=3;w=60');
      expect(first.headers['ratelimit']).toBe('"auth-failures";r=2;t=60');
      const second = await from(client).expect(401); // no header at all counts too
      expect(second.headers['ratelimit']).toBe('"auth-failures";r=1;t=60');
      clock.advance(20_000);
      const third = await from(client, `Bearer ${tokenFor()} garbage`).expect(401);
      expect(third.headers['ratelimit']).toBe('"auth-failures";r=0;t=40');

      const limited = await from(client, 'Bearer not.a.jwt').expect(429);
      expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(limited.headers['retry-after']).toBe('40');
      expect(limited.headers['ratelimit-policy']).toBe('"auth-failures";q=3;w=60');
      expect(limited.headers['ratelimit']).toBe('"auth-failures";r=0;t=40');
      expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(limited.body.detail).toContain('failed authentications');
      await from(client).expect(429);
      // A valid token still gets through: a neighbour's bad tokens lock nobody out. It counts
      // against its organization's limit, and says so.
      const through = await from(client, valid()).expect(200);
      expect(through.headers['ratelimit-policy']).toBe('"organization";q=1200;w=60');
      expect(through.headers['ratelimit']).toMatch(/^"organization";r=\d+;t=60$/);
      // Public routes have their own limit and stay open.
      await t.http().get('/health').set('X-Forwarded-For', client).expect(200);

      clock.advance(39_000);
      expect((await from(client, 'Bearer a.b.c').expect(429)).headers['retry-after']).toBe('1');
      clock.advance(1_000);
      await from(client, 'Bearer not.a.jwt').expect(401);
    });

    it('does not count successful requests, nor charge one address for another', async () => {
      const client = '198.51.100.20';
      for (let i = 0; i < 10; i++) await from(client, valid()).expect(200);
      await from(client, 'Bearer a.b.c').expect(401);
      await from(client, 'Bearer a.b.c').expect(401);
      await from(client, valid()).expect(200);
      await from(client, 'Bearer a.b.c').expect(401);
      await from(client, 'Bearer a.b.c').expect(429);
      await from('198.51.100.21', 'Bearer a.b.c').expect(401);
    });

    it('counts an IPv6 /64 as one client', async () => {
      for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) {
        await from(address, 'Bearer a.b.c').expect(401);
      }
      await from('2001:db8:1:2::4', 'Bearer a.b.c').expect(429);
      await from('2001:db8:1:3::1', 'Bearer a.b.c').expect(401);
    });
  });

  describe('with JWT_REQUIRE_EXP=false and no proxy trusted', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ JWT_REQUIRE_EXP: 'false', AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
    });
    afterAll(async () => t.close());

    it('accepts a token without exp, and still refuses an expired one', async () => {
      const token = jwt.sign({ sub: 'u', organization_id: 'o' }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
      });
      await t.http().get('/v1/tools/specs').set(bearer(token)).expect(200);
      await t
        .http()
        .get('/v1/tools/specs')
        .set(bearer(tokenFor({ claims: { exp: now() - 120 } })))
        .expect(401);
    });

    it('ignores X-Forwarded-For: a client cannot pick the address it is counted under', async () => {
      await t
        .http()
        .get('/v1/tools/specs')
        .set('X-Forwarded-For', '192.0.2.1')
        .set(bearer('not.a.jwt'))
        .expect(401);
      await t
        .http()
        .get('/v1/tools/specs')
        .set('X-Forwarded-For', '192.0.2.2')
        .set(bearer('not.a.jwt'))
        .expect(429);
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
  return signHs256({ alg: 'HS256', typ: 'JWT' }, payload, secret);
}

/** An HS256 token with exactly this header and payload, which jsonwebtoken would not build. */
function signHs256(header: object, payload: object, secret: string): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${encode(header)}.${encode(payload)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}
