import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const LOOPBACK = /^(::ffff:127\.0\.0\.1|127\.0\.0\.1|::1)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** GET /v1/tools without a token (401) under `requestId`, with `headers`. */
const askTools = (app: TestApp, requestId: string, headers: Record<string, string> = {}) =>
  app.http().get('/v1/tools').set('X-Request-Id', requestId).set(headers).expect(401);

/** The JSON lines the service logged, parsed. */
const logLines = (t: TestApp): Record<string, unknown>[] =>
  t
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('Request ids and the access log (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp()));
  afterAll(async () => t.close());

  it('gives every answer a new request id, and logs one access line under it', async () => {
    const first = await t.http().get('/v1/tools').expect(401);
    const second = await t.http().get('/v1/tools').expect(401);
    const id = first.headers['x-request-id'];
    expect(id).toMatch(UUID);
    expect(second.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).not.toBe(id);
    const lines = logLines(t).filter((line) => line.request_id === id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'request completed',
      req: { method: 'GET', path: '/v1/tools' },
      res: { statusCode: 401 },
    });
    expect(typeof lines[0].responseTime).toBe('number');
  });

  it("keeps a caller's well-formed X-Request-Id and replaces one that is not", async () => {
    const kept = await t.http().get('/v1/tools').set('X-Request-Id', 'trace-7f3a.1:b').expect(401);
    expect(kept.headers['x-request-id']).toBe('trace-7f3a.1:b');
    for (const bad of ['has spaces', 'x'.repeat(129), '-leading-dash', '{"json":1}']) {
      const res = await t.http().get('/v1/tools').set('X-Request-Id', bad).expect(401);
      expect(res.headers['x-request-id']).toMatch(UUID);
    }
  });

  it("puts the request id and the organization on the request's access line, and logs no query string or token", async () => {
    const organization = newOrganization();
    const token = tokenFor({ org: organization });
    const res = await t
      .http()
      .get('/v1/tools?limit=5&secret=query-value')
      .set(bearer(token))
      .set('X-Request-Id', 'req-org-1')
      .expect(400); // `secret` is not a query parameter of this route

    expect(res.headers['x-request-id']).toBe('req-org-1');
    const [line] = logLines(t).filter((entry) => entry.request_id === 'req-org-1');
    expect(line).toMatchObject({
      level: 40,
      organization_id: organization,
      req: { method: 'GET', path: '/v1/tools' },
      res: { statusCode: 400 },
    });
    expect(line.req).toMatchObject({ remoteAddress: expect.stringMatching(LOOPBACK) });
    expect(t.logs()).not.toContain('query-value');
    expect(t.logs()).not.toContain(token.split('.')[2]);
  });

  it("puts the client's address and user agent on the access line; not a forwarded address without a trusted proxy", async () => {
    await askTools(t, 'req-client-1', {
      'User-Agent': 'agent-sdk/1.2 (linux)',
      // No TRUST_PROXY: anyone can write this header, so it is not the client's address.
      'X-Forwarded-For': '203.0.113.7',
    });
    const [line] = logLines(t).filter((entry) => entry.request_id === 'req-client-1');
    expect(line.req).toEqual({
      method: 'GET',
      path: '/v1/tools',
      remoteAddress: expect.stringMatching(LOOPBACK),
      userAgent: 'agent-sdk/1.2 (linux)',
    });
  });

  it('cuts a long user agent and escapes its control characters', async () => {
    // Node's HTTP client (and server) let tab and bytes 0x80-0xFF through in a header: 0x9B is
    // the one-byte terminal escape (CSI) that JSON leaves as it is.
    await askTools(t, 'req-ua-1', { 'User-Agent': 'evil\t\u009b31mred' });
    await askTools(t, 'req-ua-2', { 'User-Agent': `long/${'x'.repeat(2000)}` });
    const agents = ['req-ua-1', 'req-ua-2'].map(
      (id) =>
        (logLines(t).find((entry) => entry.request_id === id)?.req as { userAgent: string })
          .userAgent,
    );
    expect(agents[0]).toBe('evil\\x09\\x9b31mred');
    expect(t.logs()).not.toContain('\u009b');
    expect(agents[1]).toBe(`long/${'x'.repeat(251)}…`);
  });

  it('puts the request id on lines logged while the request runs', async () => {
    // The OAuth2 callback logs a warning for a state it cannot verify, inside the request.
    await t
      .http()
      .get('/v1/oauth2/callback?state=forged&code=x')
      .set('X-Request-Id', 'req-callback-1');
    const lines = logLines(t).filter((line) => line.request_id === 'req-callback-1');
    expect(lines.map((line) => line.msg)).toEqual([
      'OAuth2 callback with an invalid state',
      'request completed',
    ]);
  });

  it('names the request in every problem body, from the guard, the body parser and the handler', async () => {
    const auth = bearer(tokenFor());
    const answers = [
      await t.http().get('/v1/tools').expect(401),
      await t
        .http()
        .post('/v1/channels/whatsapp')
        .set(auth)
        .set('Content-Type', 'application/json')
        .send('{"broken":')
        .expect(400),
      await t
        .http()
        .get('/v1/channels/whatsapp/0190a1b2-0000-7000-8000-000000000000')
        .set(auth)
        .expect(404),
      await t
        .http()
        .get('/v1/tools')
        .set(auth)
        .set('X-Request-Id', 'caller-42')
        .query({ limit: 0 })
        .expect(400),
    ];
    for (const answer of answers) {
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.body.request_id).toBe(answer.headers['x-request-id']);
    }
    expect(answers[3].body.request_id).toBe('caller-42');
  });

  it('logs no line per route or module at start-up', () => {
    const boot = logLines(t).filter((line) =>
      ['RoutesResolver', 'RouterExplorer', 'InstanceLoader'].includes(String(line.context)),
    );
    expect(boot).toEqual([]);
  });
});

// Its own app, after the other is closed: Nest's logger is one per process, the last app's.
describe('The access log behind a trusted proxy (e2e)', () => {
  let behindProxy: TestApp;
  beforeAll(async () => (behindProxy = await startApp({ TRUST_PROXY: 'loopback' })));
  afterAll(async () => behindProxy.close());

  it("logs the address the trusted proxy forwarded as the client's", async () => {
    await askTools(behindProxy, 'req-client-2', {
      'X-Forwarded-For': '198.51.100.9, 203.0.113.7',
    });
    const [proxied] = logLines(behindProxy).filter((e) => e.request_id === 'req-client-2');
    // The loopback proxy is trusted, the address it names is not a proxy: that is the client.
    expect(proxied.req).toMatchObject({ remoteAddress: '203.0.113.7' });
    expect(proxied.req).not.toHaveProperty('userAgent');
  });
});
