import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

/**
 * CORS_ORIGINS: a page at a listed origin may call the API with a token (preflights answered,
 * answers readable, the headers a client needs exposed); a page anywhere else gets no CORS header,
 * so the browser keeps every answer from it.
 */
describe('CORS (e2e)', () => {
  const APP_ORIGIN = 'https://app.example.com';
  const DEV_ORIGIN = 'http://localhost:5173';
  const OTHER_ORIGIN = 'https://evil.example.net';
  let t: TestApp;
  const auth = bearer(tokenFor({ org: newOrganization() }));

  beforeAll(async () => {
    t = await startApp({ CORS_ORIGINS: `${APP_ORIGIN}, ${DEV_ORIGIN}` });
  });
  afterAll(async () => t.close());

  const preflight = (origin: string, path = '/v1/tools', method = 'POST') =>
    t
      .http()
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key');

  it('answers a listed origin’s preflight before the token, with the methods and headers of the API', async () => {
    for (const origin of [APP_ORIGIN, DEV_ORIGIN]) {
      const res = await preflight(origin).expect(204);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': origin,
        'access-control-max-age': '600',
      });
      expect(res.headers['vary']).toMatch(/Origin/);
      expect(res.headers['access-control-allow-methods'].split(', ')).toEqual(
        expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']),
      );
      expect(res.headers['access-control-allow-headers'].split(', ')).toEqual(
        expect.arrayContaining(['Authorization', 'Content-Type', 'Idempotency-Key']),
      );
      // The token is a header the page sets, not a cookie: no credentials mode.
      expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
    }
    // A removal's preflight too, on a path with an id.
    await preflight(APP_ORIGIN, '/v1/tools/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'DELETE')
      .expect(204)
      .expect('Access-Control-Allow-Origin', APP_ORIGIN);
  });

  it('gives any other origin’s preflight no CORS header', async () => {
    for (const origin of [OTHER_ORIGIN, 'null', 'https://app.example.com.evil.example.net']) {
      const res = await preflight(origin);
      expect(res.status).not.toBe(204);
      expect(res.headers).not.toHaveProperty('access-control-allow-origin');
      expect(res.headers).not.toHaveProperty('access-control-allow-methods');
    }
  });

  it('lets a listed origin read answers and the headers it needs; not another origin', async () => {
    const created = await t
      .http()
      .post('/v1/tools')
      .set(auth)
      .set('Origin', APP_ORIGIN)
      .set('Idempotency-Key', 'cors-create-1')
      .send({ agent_id: 'agent-cors', name: 'Math.Calculate' })
      .expect(201);
    expect(created.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    const exposed = (created.headers['access-control-expose-headers'] as string).split(', ');
    expect(exposed).toEqual(
      expect.arrayContaining([
        'RateLimit',
        'RateLimit-Policy',
        'Retry-After',
        'Location',
        'X-Request-Id',
      ]),
    );
    // The 2022 draft's fields, which nothing sends any more, are not offered.
    expect(exposed.filter((name) => /^RateLimit-(Limit|Remaining|Reset)$/.test(name))).toEqual([]);
    // Problems are readable too: a page can show why it was refused.
    const refused = await t.http().get('/v1/tools').set('Origin', APP_ORIGIN).expect(401);
    expect(refused.headers['access-control-allow-origin']).toBe(APP_ORIGIN);

    const other = await t.http().get('/v1/tools').set(auth).set('Origin', OTHER_ORIGIN).expect(200);
    expect(other.headers).not.toHaveProperty('access-control-allow-origin');
    expect(other.headers).not.toHaveProperty('access-control-expose-headers');
    // Same-origin and non-browser clients are as before.
    const plain = await t.http().get('/v1/tools').set(auth).expect(200);
    expect(plain.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it('lets a listed origin past the MCP endpoint’s Origin check, and still refuses others', async () => {
    const path = '/v1/agents/agent-cors/mcp';
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    // Past the Origin check, the token is what is missing.
    await t.http().post(path).set('Origin', APP_ORIGIN).send(body).expect(401);
    const refused = await t.http().post(path).set('Origin', OTHER_ORIGIN).send(body).expect(403);
    expect(refused.body).toMatchObject({ code: 'forbidden' });
  });
});
