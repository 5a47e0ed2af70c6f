import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { aTool } from './support/factories';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

interface Spec {
  name: string;
  qualified_name: string;
  fully_qualified_name: string;
  formatted_schema: {
    type: string;
    function: { name: string; parameters: { type: string; properties: object } };
  };
  input: { parameters: { name: string; value_schema: { val_type: string } }[] };
  requirements: {
    met: boolean;
    authorization?: {
      id: string;
      provider_id: string;
      status: string;
      oauth2: { scopes: string[] };
    };
    secrets: { key: string; met: boolean }[];
  };
  toolkit: { name: string; version: string };
}

describe('Tools (e2e)', () => {
  let t: TestApp;
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    org = newOrganization();
    auth = bearer(tokenFor({ org, sub: 'bob' }));
  });

  const specs = async (
    query = '',
  ): Promise<{ items: Spec[]; offset: number; total_count: number }> =>
    (await t.http().get(`/v1/tools/specs${query}`).set(auth).expect(200)).body.data;

  describe('GET /v1/tools/specs', () => {
    it('lists the catalog in the spec shape, wrapped in data', async () => {
      const res = await t.http().get('/v1/tools/specs').set(auth).expect(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      const page = res.body.data;
      expect(page.offset).toBe(0);
      expect(page.total_count).toBeGreaterThanOrEqual(10);
      expect(page.items.length).toBe(Math.min(50, page.total_count));
      for (const spec of page.items as Spec[]) {
        expect(spec.qualified_name).toBe(`${spec.toolkit.name}.${spec.name}`);
        expect(spec.fully_qualified_name).toBe(`${spec.qualified_name}@${spec.toolkit.version}`);
        expect(spec.formatted_schema.type).toBe('function');
        expect(spec.formatted_schema.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        expect(spec.formatted_schema.function.parameters.type).toBe('object');
      }
      expect(
        new Set(page.items.map((spec: Spec) => spec.toolkit.name)).size,
      ).toBeGreaterThanOrEqual(3);
    });

    it('answers the same page with the same strong ETag, and 304 to If-None-Match while it is current', async () => {
      const first = await t.http().get('/v1/tools/specs?toolkit=math').set(auth).expect(200);
      const etag = first.headers.etag;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(first.headers['cache-control']).toBe('private, no-cache');
      expect(first.headers['content-type']).toMatch(/^application\/json/);
      // Another organization reads the same bytes: without an agent the page is everyone's.
      const other = bearer(tokenFor());
      const again = await t.http().get('/v1/tools/specs?toolkit=MATH').set(other).expect(200);
      expect(again.headers.etag).toBe(etag);
      expect(again.text).toBe(first.text);

      for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const cached = await t
          .http()
          .get('/v1/tools/specs?toolkit=math')
          .set(auth)
          .set('If-None-Match', header)
          .expect(304);
        expect(cached.text).toBe('');
        expect(cached.headers.etag).toBe(etag);
      }
      await t
        .http()
        .get('/v1/tools/specs?toolkit=math')
        .set(auth)
        .set('If-None-Match', '"something-else"')
        .expect(200);
      // The token is checked before any of it.
      await t.http().get('/v1/tools/specs?toolkit=math').set('If-None-Match', etag).expect(401);
    });

    it('does not serve the unfiltered page to ?toolkit= (which matches no toolkit), nor the reverse', async () => {
      const empty = await t.http().get('/v1/tools/specs?toolkit=').set(auth);
      const all = await t.http().get('/v1/tools/specs').set(auth).expect(200);
      const emptyAgain = await t.http().get('/v1/tools/specs?toolkit=').set(auth);
      expect(emptyAgain.status).toBe(empty.status);
      expect(emptyAgain.text).toBe(empty.text);
      expect(all.body.data.total_count).toBeGreaterThan(0);
      if (empty.status === 200) expect(empty.body.data.total_count).toBe(0);
    });

    it('gives each format, toolkit and page its own ETag', async () => {
      const etags = await Promise.all(
        [
          '?toolkit=math',
          '?toolkit=math&format=anthropic',
          '?toolkit=weather',
          '?toolkit=math&limit=1',
          '?toolkit=math&offset=1',
        ].map(
          async (query) => (await t.http().get(`/v1/tools/specs${query}`).set(auth)).headers.etag,
        ),
      );
      expect(new Set(etags).size).toBe(etags.length);
    });

    it('pages in a stable order', async () => {
      const all = await specs('?limit=200');
      const first = await specs('?offset=0&limit=3');
      const second = await specs('?offset=3&limit=3');
      expect(first.items.map((s) => s.qualified_name)).toEqual(
        all.items.slice(0, 3).map((s) => s.qualified_name),
      );
      expect(second.items.map((s) => s.qualified_name)).toEqual(
        all.items.slice(3, 6).map((s) => s.qualified_name),
      );
      expect(second.offset).toBe(3);
      expect(second.total_count).toBe(all.total_count);
      const beyond = await specs(`?offset=${all.total_count}`);
      expect(beyond.items).toEqual([]);
    });

    it('filters by toolkit, case-insensitively', async () => {
      const page = await specs('?toolkit=weather');
      expect(page.total_count).toBeGreaterThan(0);
      expect(page.items.every((spec) => spec.toolkit.name === 'Weather')).toBe(true);
      expect((await specs('?toolkit=NoSuchToolkit')).total_count).toBe(0);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['format=xml', 'format'],
      ['unknown=1', 'unknown'],
    ])('answers 400 for %s', async (query, field) => {
      const res = await t.http().get(`/v1/tools/specs?${query}`).set(auth).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });

    it('formats formatted_schema for OpenAI by default, or for Anthropic or MCP', async () => {
      const pick = async (query: string) =>
        (await specs(`?toolkit=math${query}`)).items.find((s) => s.name === 'Calculate')!
          .formatted_schema as unknown as Record<string, unknown>;
      const openai = await pick('');
      expect(openai).toEqual({
        type: 'function',
        function: {
          name: 'Math_Calculate',
          description: expect.any(String),
          // Strict wherever the parameters allow (src/tools/catalog/provider-schemas.spec.ts).
          strict: expect.any(Boolean),
          parameters: expect.objectContaining({ type: 'object', additionalProperties: false }),
        },
      });
      expect(await pick('&format=openai')).toEqual(openai);
      const anthropic = await pick('&format=anthropic');
      expect(anthropic).toEqual({
        name: 'Math_Calculate',
        description: expect.any(String),
        input_schema: expect.objectContaining({ type: 'object', additionalProperties: false }),
      });
      // MCP also has the tool's behaviour and its result: a number, wrapped as {result}.
      expect(await pick('&format=mcp')).toEqual({
        name: 'Math_Calculate',
        description: expect.any(String),
        inputSchema: anthropic.input_schema,
        outputSchema: {
          type: 'object',
          properties: { result: { type: 'number' } },
          required: ['result'],
          additionalProperties: false,
        },
        annotations: {
          title: 'Calculate',
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
      });
    });

    it('answers the mcp format as tools an MCP client reads, each with annotations and an outputSchema', async () => {
      const { items } = await specs('?format=mcp&limit=200');
      const tools = items.map(
        (spec) => spec.formatted_schema as unknown as Record<string, unknown>,
      );
      // Equal after the SDK's parse: nothing in them is refused or dropped.
      expect(ListToolsResultSchema.parse({ tools })).toEqual({ tools });
      for (const tool of tools) {
        expect(tool).toMatchObject({
          annotations: { title: expect.any(String), readOnlyHint: expect.any(Boolean) },
          outputSchema: { type: 'object' },
        });
      }
      const send = tools.find((tool) => tool.name === 'Agentline_SendWhatsappMessage');
      expect(send?.annotations).toEqual({
        title: 'Send a WhatsApp message',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
    });

    it('reports requirements.met: true only for tools that need nothing, without agent_id', async () => {
      const { items } = await specs('?limit=200');
      const none = items.find((spec) => spec.qualified_name === 'Math.Calculate')!;
      const secret = items.find((spec) => spec.qualified_name === 'Weather.GetCurrentWeather')!;
      const oauth = items.find((spec) => spec.qualified_name === 'Google.SendEmail')!;
      expect(none.requirements).toEqual({ met: true, secrets: [] });
      expect(secret.requirements.met).toBe(false);
      expect(secret.requirements.secrets).toEqual([
        expect.objectContaining({ key: 'OPENWEATHER_API_KEY', met: false }),
      ]);
      expect(oauth.requirements.met).toBe(false);
      expect(oauth.requirements.authorization).toMatchObject({
        provider_id: 'google',
        provider_type: 'oauth2',
        status: 'not_started',
        oauth2: { scopes: ['https://www.googleapis.com/auth/gmail.send'] },
      });
    });

    it("tells with agent_id whether that agent's attachment is authorized", async () => {
      await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Weather.GetCurrentWeather', api_key: 'owm-key' }))
        .expect(201);
      await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Search.WebSearch' }))
        .expect(201);
      const mine = await specs('?limit=200&agent_id=agent-1');
      const other = await specs('?limit=200&agent_id=agent-2');
      const find = (page: { items: Spec[] }, name: string) =>
        page.items.find((s) => s.qualified_name === name)!;
      expect(find(mine, 'Weather.GetCurrentWeather').requirements.met).toBe(true);
      expect(find(mine, 'Weather.GetCurrentWeather').requirements.secrets[0].met).toBe(true);
      expect(find(mine, 'Search.WebSearch').requirements.met).toBe(false);
      expect(find(other, 'Weather.GetCurrentWeather').requirements.met).toBe(false);
      expect(find(mine, 'Math.Calculate').requirements.met).toBe(true);
      // Another organization's agent with the same id sees nothing of ours.
      const stranger = (
        await t
          .http()
          .get('/v1/tools/specs?limit=200&agent_id=agent-1')
          .set(bearer(tokenFor()))
          .expect(200)
      ).body.data;
      expect(find(stranger, 'Weather.GetCurrentWeather').requirements.met).toBe(false);
    });

    it('reports an OAuth2 attachment that has not completed as unmet, naming the attachment', async () => {
      const tool = (
        await t
          .http()
          .post('/v1/tools')
          .set(auth)
          .send(aTool({ name: 'Google.SendEmail' }))
          .expect(201)
      ).body.data;
      const spec = (await specs('?toolkit=google&agent_id=agent-1')).items.find(
        (s) => s.name === 'SendEmail',
      )!;
      expect(spec.requirements.met).toBe(false);
      expect(spec.requirements.authorization).toMatchObject({ id: tool.id, status: 'not_started' });
    });
  });

  describe('POST /v1/tools', () => {
    it('attaches a tool that needs nothing as completed, echoing params', async () => {
      const params = { precision: 4, nested: { list: [1, 'two', null, true], empty: {} } };
      const res = await t.http().post('/v1/tools').set(auth).send(aTool({ params })).expect(201);
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(res.body.data).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        agent_id: 'agent-1',
        name: 'Math.Calculate',
        params,
        authorization_status: 'completed',
        oauth2_url: '',
        organization_id: org,
        created_by: 'bob',
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
    });

    it.each([
      ['a string', 'hello'],
      ['a number', 42.5],
      ['zero', 0],
      ['false', false],
      ['null', null],
      ['an array', [1, { a: [] }]],
      ['an object with keys out of order', { z: 1, a: 2, m: { y: 1, b: 2 } }],
    ])('echoes params that are %s exactly', async (_name, params) => {
      const res = await t.http().post('/v1/tools').set(auth).send(aTool({ params })).expect(201);
      expect(res.body.data.params).toEqual(params);
      expect(JSON.stringify(res.body.data.params)).toBe(JSON.stringify(params));
    });

    it('answers params null when none are sent', async () => {
      const res = await t.http().post('/v1/tools').set(auth).send(aTool()).expect(201);
      expect(res.body.data.params).toBeNull();
    });

    it('accepts the fully qualified name', async () => {
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Math.Calculate@1.0.0' }))
        .expect(201);
      expect(res.body.data.name).toBe('Math.Calculate@1.0.0');
    });

    it('completes a secret tool when api_key is given, never returning or logging it', async () => {
      const apiKey = 'owm-secret-0123456789abcdef';
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Weather.GetCurrentWeather', api_key: apiKey }))
        .expect(201);
      expect(res.body.data.authorization_status).toBe('completed');
      expect(res.body.data).not.toHaveProperty('api_key');
      expect(JSON.stringify(res.body)).not.toContain(apiKey);
      expect(t.logs()).not.toContain(apiKey);
      const rows = await t.app
        .get(DataSource)
        .query('SELECT api_key_encrypted FROM tools WHERE id = $1', [res.body.data.id]);
      expect(rows[0].api_key_encrypted).toMatch(/^v1\./);
      expect(rows[0].api_key_encrypted).not.toContain(apiKey);
    });

    it('leaves a secret tool not_started without api_key', async () => {
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Weather.GetForecast' }))
        .expect(201);
      expect(res.body.data.authorization_status).toBe('not_started');
    });

    it('leaves an OAuth2 tool not_started', async () => {
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Google.SendEmail' }))
        .expect(201);
      expect(res.body.data).toMatchObject({ authorization_status: 'not_started', oauth2_url: '' });
    });

    it.each([
      ['an unknown tool', 'Nope.Nothing'],
      ['a wrong toolkit version', 'Math.Calculate@9.9.9'],
      ['a bare tool name', 'Calculate'],
    ])('answers 422 unknown_tool for %s', async (_name, name) => {
      const res = await t.http().post('/v1/tools').set(auth).send(aTool({ name })).expect(422);
      expect(res.body).toMatchObject({ status: 422, code: 'unknown_tool' });
    });

    it.each([
      ['a missing name', { name: undefined }, 'name'],
      ['a missing agent_id', { agent_id: undefined }, 'agent_id'],
      ['a numeric name', { name: 7 }, 'name'],
      ['a numeric api_key', { api_key: 7 }, 'api_key'],
      ['an unknown field', { organization_id: 'org-x' }, 'organization_id'],
    ])('answers 400 for %s', async (_name, override, field) => {
      const res = await t.http().post('/v1/tools').set(auth).send(aTool(override)).expect(400);
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });
  });
});
