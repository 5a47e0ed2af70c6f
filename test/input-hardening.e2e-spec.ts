import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { aFollowUp, aTool, aWhatsappChannel } from './support/factories';
import { givenWhatsappChannel } from './support/given';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';
import { toolRequests } from './support/tool-requests';

/** POSTs raw bytes with node:http on a listening app; answers status, headers and parsed body. */
async function rawPost(
  t: TestApp,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }> {
  const server = t.app.getHttpServer();
  if (!server.listening)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Each row of issue 7's "765 responses 500 from five input bugs" and "Costly bodies", tried again. */
describe('Hostile input (e2e)', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  const { attach, execute } = toolRequests(
    () => t,
    () => auth,
  );

  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    auth = bearer(tokenFor());
  });

  const expectValidationProblem = (
    res: { status: number; headers: Record<string, string>; body: Record<string, unknown> },
    field: string,
  ) => {
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  };

  describe('NUL characters', () => {
    it.each([
      [
        'a channel field',
        '/v1/channels/whatsapp',
        aWhatsappChannel({ agent_id: 'a\u0000b' }),
        'agent_id',
      ],
      [
        'a nested tool param',
        '/v1/tools',
        aTool({ params: { a: [{ b: 'x\u0000' }] } }),
        'params.a[0].b',
      ],
      ['an object key', '/v1/tools', aTool({ params: { 'k\u0000': 1 } }), 'params.k\\u0000'],
      ['a tool api_key', '/v1/tools', aTool({ api_key: '\u0000' }), 'api_key'],
    ])('refuses one in %s with 400 naming the field', async (_what, path, body, field) => {
      expectValidationProblem(await t.http().post(path).set(auth).send(body), field);
    });

    it('refuses one in a follow-up phone number, prompt or tool input', async () => {
      const channel = await givenWhatsappChannel(t, auth);
      expectValidationProblem(
        await t
          .http()
          .post('/v1/scheduler/follow-up/whatsapp')
          .set(auth)
          .send(
            aFollowUp(channel.id, { client_phone_numbers: ['+34612345678', '+3461\u00002345679'] }),
          ),
        'client_phone_numbers[1]',
      );
      expectValidationProblem(
        await t
          .http()
          .post('/v1/scheduler/follow-up/whatsapp')
          .set(auth)
          .send(aFollowUp(channel.id, { prompt: 'hi\u0000' })),
        'prompt',
      );
      const tool = await attach('Math.Calculate');
      expectValidationProblem(
        await execute(tool.id, { expression: '1+\u00001' }),
        'input.expression',
      );
    });

    it.each([
      ['/v1/tools?agent_id=a%00b', 'agent_id'],
      ['/v1/tools/specs?toolkit=%00', 'toolkit'],
      ['/v1/scheduler/follow-ups?agent_id=%00', 'agent_id'],
      ['/v1/scheduler/preview?frequency=daily%00', 'frequency'],
      ['/v1/tools/%00', 'id'],
      ['/v1/scheduler/follow-up/whatsapp/x%00y/deliveries', 'id'],
      ['/v1/oauth2/callback?state=%00&code=x', 'state'],
    ])('refuses one in the query or path of GET %s', async (path, field) => {
      expectValidationProblem(await t.http().get(path).set(auth), field);
    });

    it('refuses one in a path parameter of PUT and DELETE', async () => {
      expectValidationProblem(
        await t.http().put('/v1/channels/whatsapp/%00').set(auth).send({ number_id: '1' }),
        'id',
      );
      expectValidationProblem(await t.http().delete('/v1/tools/a%00').set(auth), 'id');
    });
  });

  describe('unpaired surrogates and numbers beyond a double (PostgreSQL refuses the first)', () => {
    it('refuses a lone surrogate in a send-now or follow-up template parameter (was 500)', async () => {
      const channel = await givenWhatsappChannel(t, auth);
      const template = { name: 'check_in', language: 'en', parameters: ['ok', 'x\ud800'] };
      const field = 'template.parameters[1]';
      const res = await t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/messages`)
        .set(auth)
        .send({ to: '+34612345678', template });
      expectValidationProblem(res, field);
      expect(res.body.errors).toEqual([{ field, message: expect.stringMatching(/surrogate/) }]);
      expectValidationProblem(
        await t
          .http()
          .post('/v1/scheduler/follow-up/whatsapp')
          .set(auth)
          .send(aFollowUp(channel.id, { template })),
        field,
      );
    });

    it('refuses a lone surrogate in a free-form value or key', async () => {
      expectValidationProblem(
        await t
          .http()
          .post('/v1/tools')
          .set(auth)
          .send(aTool({ params: { a: ['\udfff'] } })),
        'params.a[0]',
      );
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ params: { 'k\udc00': 1 } }));
      expectValidationProblem(res, 'params.k\\udc00');
    });

    it('refuses 1e400 (which JSON.parse reads as Infinity) instead of storing null', async () => {
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .set('Content-Type', 'application/json')
        .send('{"agent_id":"a","name":"Math.Calculate","params":{"n":1e400}}');
      expectValidationProblem(res, 'params.n');
    });
  });

  describe('JSON nesting', () => {
    const nested = (depth: number) => `${'['.repeat(depth - 1)}{"a":1}${']'.repeat(depth - 1)}`;
    const postTool = (params: string) =>
      t
        .http()
        .post('/v1/tools')
        .set(auth)
        .set('Content-Type', 'application/json')
        .send(`{"agent_id":"a","name":"Math.Calculate","params":${params}}`);

    it('refuses a body nested 5,000 deep with 400 json_too_deep, also gzipped', async () => {
      const res = await postTool(nested(5000));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'json_too_deep' });

      // Sent as raw bytes: supertest re-encodes a Buffer made outside Jest's realm.
      const body = gzipSync(`{"agent_id":"a","name":"Math.Calculate","params":${nested(5000)}}`);
      expect(body.length).toBeLessThan(1000);
      const gzipped = await rawPost(t, '/v1/tools', body, {
        ...auth,
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
      });
      expect(gzipped.status).toBe(400);
      expect(gzipped.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(gzipped.body).toMatchObject({ code: 'json_too_deep' });
    });

    it('accepts 64 levels (the body object included) and refuses 65', async () => {
      // The body object is level 1, so params may nest 63 deep.
      await postTool(nested(63)).expect(201);
      const res = await postTool(nested(64));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'json_too_deep' });
    });

    it('does not count brackets inside strings, escaped quotes included', async () => {
      await postTool(JSON.stringify({ text: `\\"${'[{'.repeat(10_000)}` })).expect(201);
    });

    it('refuses a body in a charset other than UTF-8', async () => {
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .set('Content-Type', 'application/json; charset=utf-16le')
        .send(Buffer.from(JSON.stringify(aTool()), 'utf16le'));
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ code: 'unsupported_media_type' });
    });
  });

  describe('numbers that reach SQL or Date', () => {
    it.each([
      ['offset=9223372036854775808', 'offset'],
      ['offset=1000000001', 'offset'],
      ['offset=1e300', 'offset'],
      ['offset=-1', 'offset'],
      ['limit=201', 'limit'],
      ['limit=0', 'limit'],
    ])('refuses %s on every list', async (query, field) => {
      const channel = await givenWhatsappChannel(t, auth);
      for (const path of ['/v1/tools', '/v1/tools/specs', '/v1/scheduler/follow-ups']) {
        expectValidationProblem(await t.http().get(`${path}?${query}`).set(auth), field);
      }
      const tool = await attach('Math.Calculate');
      expectValidationProblem(
        await t.http().get(`/v1/tools/${tool.id}/executions?${query}`).set(auth),
        field,
      );
      const followUp = await t
        .http()
        .post('/v1/scheduler/follow-up/whatsapp')
        .set(auth)
        .send(aFollowUp(channel.id))
        .expect(201);
      expectValidationProblem(
        await t
          .http()
          .get(`/v1/scheduler/follow-up/whatsapp/${followUp.body.id}/deliveries?${query}`)
          .set(auth),
        field,
      );
    });

    it('serves the largest offset allowed', async () => {
      const res = await t.http().get('/v1/tools?offset=1000000000').set(auth).expect(200);
      expect(res.body.data).toMatchObject({ items: [], offset: 1_000_000_000, total_count: 0 });
    });

    it.each(['8640000000000000', '253402300800000', '-1', '1.5'])(
      'refuses preview from=%s with 400',
      async (from) => {
        expectValidationProblem(
          await t.http().get(`/v1/scheduler/preview?frequency=daily&from=${from}`).set(auth),
          'from',
        );
      },
    );

    it.each(['daily', 'once', 'P1D', '0 9 * * *', 'FREQ=YEARLY', 'monthly'])(
      'previews %s from the last millisecond of year 9999 without failing',
      async (frequency) => {
        const res = await t
          .http()
          .get('/v1/scheduler/preview')
          .query({ frequency, from: Date.UTC(9999, 11, 31, 23, 59, 59, 999), count: 500 })
          .set(auth);
        expect([200, 400]).toContain(res.status);
      },
    );

    it('refuses from=8640000000000000 in the PreviewSchedule tool by its published maximum', async () => {
      const tool = await attach('Agentline.PreviewSchedule');
      const res = await execute(tool.id, { frequency: 'daily', from: 8_640_000_000_000_000 });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { field: 'input.from', message: 'must be at most 253402300799999' },
      ]);
    });
  });

  describe('null where a value is required', () => {
    it.each([{ number_id: null }, { access_token: null }])(
      'refuses PUT /v1/channels/whatsapp/{id} with %j',
      async (body) => {
        const channel = await givenWhatsappChannel(t, auth);
        const res = await t.http().put(`/v1/channels/whatsapp/${channel.id}`).set(auth).send(body);
        expectValidationProblem(res, Object.keys(body)[0]);
      },
    );

    it('refuses null in optional fields of every body', async () => {
      const channel = await givenWhatsappChannel(t, auth);
      expectValidationProblem(
        await t
          .http()
          .post('/v1/tools')
          .set(auth)
          .send(aTool({ api_key: null })),
        'api_key',
      );
      for (const field of ['time_zone', 'description']) {
        expectValidationProblem(
          await t
            .http()
            .post('/v1/scheduler/follow-up/whatsapp')
            .set(auth)
            .send(aFollowUp(channel.id, { [field]: null })),
          field,
        );
      }
      // `params` is any JSON value, null included, as the spec shows it.
      await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ params: null }))
        .expect(201);
    });
  });

  describe('costly bodies', () => {
    const wide = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

    it('refuses 40,000 unknown keys with one error, not 40,000', async () => {
      const res = await t
        .http()
        .post('/v1/channels/whatsapp')
        .set(auth)
        .send({ ...aWhatsappChannel(), ...wide(40_000) });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { field: 'body', message: 'must not have more than 1000 keys' },
      ]);
      expect(res.body.errors_total).toBe(1);
    });

    it('reports up to 1,000 unknown keys as unknown fields, capped at 50 errors', async () => {
      const body: Record<string, unknown> = aWhatsappChannel();
      for (let i = 0; i < 990; i++) body[`k${i}`] = i;
      const res = await t.http().post('/v1/channels/whatsapp').set(auth).send(body).expect(400);
      expect(res.body.errors).toHaveLength(50);
      expect(res.body.errors_total).toBe(990);
      expect(res.body.errors[0]).toEqual({ field: 'k0', message: 'unknown field k0' });
    });

    it('refuses an object of more than 1,000 keys anywhere, naming where', async () => {
      const tool = await attach('Math.Calculate');
      const refused = [
        [aTool({ params: { deep: [wide(1_001)] } }), '/v1/tools', 'params.deep[0]'],
        [
          { input: { expression: 'x', variables: wide(1_001) } },
          `/v1/tools/${tool.id}/execute`,
          'input.variables',
        ],
      ] as const;
      for (const [body, path, field] of refused) {
        const res = await t.http().post(path).set(auth).send(body).expect(400);
        expect(res.body.errors).toEqual([{ field, message: 'must not have more than 1000 keys' }]);
      }
      // 1,000 keys is allowed, and echoed exactly.
      const params = { deep: [wide(1_000)] };
      const created = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ params }))
        .expect(201);
      expect(created.body.data.params).toEqual(params);
    });

    it('still reports unknown fields together with the other failures', async () => {
      const res = await t
        .http()
        .post('/v1/channels/whatsapp')
        .set(auth)
        .send({ agent_id: 5, extra: 1 })
        .expect(400);
      expect(res.body.errors_total).toBe(res.body.errors.length);
      expect(res.body.errors.map((error: { field: string }) => error.field)).toEqual(
        expect.arrayContaining(['agent_id', 'access_token', 'number_id', 'extra']),
      );
    });

    it('accepts 10,000 phone numbers and caps 10,000 bad ones at 50 errors', async () => {
      const channel = await givenWhatsappChannel(t, auth);
      const numbers = Array.from(
        { length: 10_000 },
        (_, i) => `+3461${String(i).padStart(7, '0')}`,
      );
      const created = await t
        .http()
        .post('/v1/scheduler/follow-up/whatsapp')
        .set(auth)
        .send(aFollowUp(channel.id, { client_phone_numbers: numbers }))
        .expect(201);
      expect(created.body.client_phone_numbers).toHaveLength(10_000);

      const res = await t
        .http()
        .post('/v1/scheduler/follow-up/whatsapp')
        .set(auth)
        .send(aFollowUp(channel.id, { client_phone_numbers: numbers.map(() => 'nope') }))
        .expect(400);
      expect(res.body.errors).toHaveLength(50);
      expect(res.body.errors_total).toBe(10_000);
    });
  });
});
