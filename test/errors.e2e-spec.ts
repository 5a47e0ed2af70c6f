import { aTool, aWhatsappChannel } from './support/factories';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';

describe('Errors (e2e)', () => {
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startApp();
    auth = bearer(tokenFor());
  });
  afterAll(async () => t.close());

  const expectProblem = (
    res: { headers: Record<string, string>; body: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      status,
      code,
      type: expect.any(String),
      title: expect.any(String),
      detail: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/at .+\.(ts|js):\d+/);
  };

  it('answers 400 malformed_json for a body that is not valid JSON', async () => {
    const res = await t
      .http()
      .post('/v1/tools')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"agent_id": "a",')
      .expect(400);
    expectProblem(res, 400, 'malformed_json');
  });

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"hello"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('answers 400 for a JSON body that is %s', async (_name, body) => {
    const res = await t
      .http()
      .post('/v1/channels/whatsapp')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(400);
    expectProblem(res, 400, 'validation_failed');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await t
      .http()
      .post('/v1/tools')
      .set(auth)
      .set('Content-Type', 'text/plain')
      .send('agent_id=a')
      .expect(415);
    expectProblem(res, 415, 'unsupported_media_type');
    const form = await t
      .http()
      .post('/v1/tools')
      .set(auth)
      .type('form')
      .send({ agent_id: 'a', name: 'Math.Calculate' })
      .expect(415);
    expectProblem(form, 415, 'unsupported_media_type');
  });

  it('answers 413 above 1 MiB and still serves the next request', async () => {
    const res = await t
      .http()
      .post('/v1/tools')
      .set(auth)
      .send(aTool({ params: { blob: 'x'.repeat(1024 * 1024) } }))
      .expect(413);
    expectProblem(res, 413, 'payload_too_large');
    await t
      .http()
      .post('/v1/tools')
      .set(auth)
      .send(aTool({ params: { blob: 'x'.repeat(512 * 1024) } }))
      .expect(201);
  });

  it('answers 404 problem details for an unknown route', async () => {
    const res = await t.http().get('/v1/nothing-here').set(auth).expect(404);
    expectProblem(res, 404, 'not_found');
  });

  it('answers 400 with every failing field at once', async () => {
    const res = await t
      .http()
      .post('/v1/channels/whatsapp')
      .set(auth)
      .send({ agent_id: 5, extra: 1 })
      .expect(400);
    const fields = res.body.errors.map((error: { field: string }) => error.field);
    expect(fields).toEqual(
      expect.arrayContaining(['agent_id', 'access_token', 'number_id', 'extra']),
    );
  });

  it('ignores a prototype-pollution attempt', async () => {
    const res = await t
      .http()
      .post('/v1/channels/whatsapp')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send(
        JSON.stringify({ ...aWhatsappChannel(), __proto__: { polluted: true } }).replace(
          '}',
          ',"__proto__":{"polluted":true}}',
        ),
      );
    expect([201, 400]).toContain(res.status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('Rate limit (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(async () => t.close());

  /** `RateLimit: "<policy>";r=<left>;t=<seconds>` (draft-ietf-httpapi-ratelimit-headers-11), read. */
  const standing = (res: { headers: Record<string, string> }, policy: string) => {
    expect(res.headers['ratelimit-policy']).toBe(`"${policy}";q=3;w=60`);
    const [, name, left, seconds] = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(res.headers['ratelimit'])!;
    expect(name).toBe(policy);
    expect(Number(seconds)).toBeGreaterThan(0);
    expect(Number(seconds)).toBeLessThanOrEqual(60);
    return { left: Number(left), seconds: Number(seconds) };
  };

  it('answers 429 with Retry-After past the limit, per organization across routes', async () => {
    const busy = bearer(tokenFor());
    const first = await t.http().get('/v1/tools/specs?limit=1').set(busy).expect(200);
    expect(standing(first, 'organization').left).toBe(2);
    // The 2022 draft's fields are gone.
    expect(first.headers['ratelimit-limit']).toBeUndefined();
    expect(first.headers['ratelimit-remaining']).toBeUndefined();
    expect(first.headers['ratelimit-reset']).toBeUndefined();
    // One budget for the organization, whichever routes it spends it on; answers other than
    // successes say where it stands too.
    await t.http().get('/v1/tools').set(busy).expect(200);
    const last = await t.http().get('/v1/tools/not-a-uuid').set(busy);
    expect(last.status).toBeGreaterThanOrEqual(400);
    expect(last.status).toBeLessThan(429);
    expect(standing(last, 'organization').left).toBe(0);
    const res = await t.http().get('/v1/tools/specs?limit=1').set(busy).expect(429);
    const refused = standing(res, 'organization');
    expect(refused.left).toBe(0);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 429, code: 'rate_limited' });
    // Retry-After is the end of the window, as the draft asks (no earlier than `t`).
    expect(res.headers['retry-after']).toBe(String(refused.seconds));
    // Another organization is not held back by the first one's traffic.
    await t.http().get('/v1/tools/specs?limit=1').set(bearer(tokenFor())).expect(200);
  });

  it('counts a public route per client address, under a policy of its own', async () => {
    const path = '/.well-known/oauth-protected-resource/v1/agents/agent-1/mcp';
    const first = await t.http().get(path).expect(200);
    const { left } = standing(first, 'client-address');
    for (let i = 0; i < left; i++) await t.http().get(path).expect(200);
    const res = await t.http().get(path).expect(429);
    expect(standing(res, 'client-address').left).toBe(0);
    expect(res.body.detail).toContain('a client address');
    // Callers with a token are counted per organization, not per address.
    await t.http().get('/v1/tools/specs?limit=1').set(bearer(tokenFor())).expect(200);
  });
});
