import { freePort } from './support/free-port';
import { dirname, join } from 'node:path';
import { McpCallError } from '../src/tools/mcp/mcp-call.error';
import { McpToolkits } from '../src/tools/mcp/mcp-toolkits.service';
import { eventually } from './support/eventually';
import { aTool } from './support/factories';
import { issueTrackerTools, McpTestServer } from './support/mcp-test-server';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

interface Parameter {
  name: string;
  description: string;
  required: boolean;
  inferrable: boolean;
  value_schema: { val_type: string; inner_val_type?: string; enum?: string[] };
}

interface Spec {
  name: string;
  qualified_name: string;
  fully_qualified_name: string;
  description: string;
  formatted_schema: {
    type: string;
    function: {
      name: string;
      parameters: {
        type: string;
        properties: Record<string, { type: string; enum?: string[]; items?: { type: string } }>;
        required: string[];
      };
    };
  };
  input: { parameters: Parameter[] };
  output: { available_modes: string[]; value_schema: { val_type: string } };
  requirements: { met: boolean; secrets: unknown[] };
  toolkit: { name: string; version: string; description: string };
}

/** The server package's own CLI entry; spawned with this Node so no PATH lookup is involved. */
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const CRASHY = join(__dirname, 'support', 'mcp-stdio-test-server.ts');
const HEADER_SECRET = 'Bearer tracker-header-secret-0123';
const ENV_SECRET = 'everything-env-secret-4567';

async function rejection(promise: Promise<unknown>): Promise<McpCallError> {
  const error: unknown = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(McpCallError);
  return error as McpCallError;
}

describe('MCP toolkits (e2e)', () => {
  let tracker: McpTestServer;
  let t: TestApp;
  let mcp: McpToolkits;
  let auth: Record<string, string>;

  const specs = async (query: string): Promise<{ items: Spec[]; total_count: number }> =>
    (await t.http().get(`/v1/tools/specs${query}`).set(auth).expect(200)).body.data;
  const toolkitSpecs = async (toolkit: string): Promise<Spec[]> =>
    (await specs(`?toolkit=${toolkit}&limit=100`)).items;
  const specNamed = async (toolkit: string, name: string): Promise<Spec> => {
    const spec = (await toolkitSpecs(toolkit)).find((s) => s.name === name);
    if (spec === undefined) throw new Error(`${toolkit}.${name} is not listed`);
    return spec;
  };
  const param = (spec: Spec, name: string): Parameter => {
    const found = spec.input.parameters.find((p) => p.name === name);
    if (found === undefined) throw new Error(`${spec.qualified_name} has no parameter ${name}`);
    return found;
  };

  beforeAll(async () => {
    tracker = await McpTestServer.start(issueTrackerTools(), { authorization: HEADER_SECRET });
    t = await startApp({
      MCP_SERVERS: JSON.stringify([
        {
          id: 'everything',
          command: process.execPath,
          args: [EVERYTHING, 'stdio'],
          env: { AGENTLINE_TEST_SECRET: ENV_SECRET },
        },
        { id: 'tracker', url: tracker.url, headers: { Authorization: HEADER_SECRET } },
        { id: 'missing', command: 'agentline-no-such-mcp-server', args: ['--token', 'x'] },
        {
          id: 'crashy',
          command: process.execPath,
          args: ['-r', 'ts-node/register/transpile-only', CRASHY],
          cwd: join(__dirname, '..'),
        },
      ]),
    });
    mcp = t.app.get(McpToolkits);
    auth = bearer(tokenFor({ org: newOrganization() }));
    // Boot waits for the servers only so long; on a slow machine one may still be starting.
    await eventually(async () => {
      const states = mcp.status().filter((s) => s.id !== 'missing');
      expect(states.map((s) => s.state)).toEqual(['connected', 'connected', 'connected']);
    }, 30_000);
  });

  afterAll(async () => {
    await t?.close();
    await tracker?.close();
  });

  describe('GET /v1/tools/specs', () => {
    it('lists the stdio server as a toolkit named after its serverInfo', async () => {
      const items = await toolkitSpecs('McpServersEverything');
      const names = items.map((s) => s.name);
      expect(names).toEqual(expect.arrayContaining(['Echo', 'GetSum', 'GetStructuredContent']));
      // Task-only tools cannot run through a plain tools/call.
      expect(names).not.toContain('SimulateResearchQuery');
      for (const spec of items) {
        expect(spec.toolkit).toMatchObject({ name: 'McpServersEverything', version: '2.0.0' });
        expect(spec.toolkit.description.length).toBeGreaterThan(0);
        expect(spec.fully_qualified_name).toBe(`McpServersEverything.${spec.name}@2.0.0`);
        expect(spec.formatted_schema.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        expect(spec.output).toEqual({
          description: expect.any(String),
          available_modes: ['value', 'error'],
          value_schema: { val_type: 'json' },
        });
        expect(spec.requirements).toEqual({ met: true, secrets: [] });
      }
    });

    it('maps required strings and string enums', async () => {
      const echo = await specNamed('McpServersEverything', 'Echo');
      expect(echo.description).toBe('Echoes back the input string');
      expect(echo.input.parameters).toEqual([
        {
          name: 'message',
          description: 'Message to echo',
          required: true,
          inferrable: true,
          value_schema: { val_type: 'string' },
        },
      ]);
      const weather = await specNamed('McpServersEverything', 'GetStructuredContent');
      expect(param(weather, 'location').value_schema).toEqual({
        val_type: 'string',
        enum: ['New York', 'Chicago', 'Los Angeles'],
      });
      expect(weather.formatted_schema.function).toMatchObject({
        name: 'McpServersEverything_GetStructuredContent',
        parameters: {
          type: 'object',
          properties: {
            location: { type: 'string', enum: ['New York', 'Chicago', 'Los Angeles'] },
          },
          required: ['location'],
        },
      });
    });

    it('lists every page of the HTTP server, integers, arrays and objects mapped', async () => {
      const items = await toolkitSpecs('acmeissuetracker');
      expect(items.map((s) => s.name)).toEqual(['Add', 'Fail', 'SearchIssues', 'Slow']);
      expect(items[0].toolkit).toEqual({
        name: 'AcmeIssueTracker',
        version: '2.3.0',
        description: 'Issue tracker used by the agentline tests.',
      });
      const search = items[2];
      expect(search.input.parameters.map((p) => [p.name, p.required, p.value_schema])).toEqual([
        ['query', true, { val_type: 'string' }],
        ['state', false, { val_type: 'string', enum: ['open', 'closed'] }],
        ['labels', false, { val_type: 'array', inner_val_type: 'string' }],
        ['limit', false, { val_type: 'integer' }],
        ['filters', false, { val_type: 'json' }],
        ['since', false, { val_type: 'json' }],
        ['page_size', false, { val_type: 'number' }],
      ]);
      expect(search.formatted_schema.function.parameters).toMatchObject({
        properties: {
          labels: { type: 'array', items: { type: 'string' } },
          limit: { type: 'integer' },
          filters: { type: 'object' },
        },
        required: ['query'],
      });
      const add = items[0];
      expect(add.input.parameters.every((p) => p.value_schema.val_type === 'integer')).toBe(true);
      expect(add.formatted_schema.function.parameters.required).toEqual(['a', 'b']);
    });

    it('serves MCP tools alongside the built-ins and the other schema formats', async () => {
      const all = await specs('?limit=200');
      const toolkits = new Set(all.items.map((s) => s.toolkit.name));
      expect([...toolkits]).toEqual(
        expect.arrayContaining(['AcmeIssueTracker', 'Google', 'McpServersEverything']),
      );
      const anthropic = await specs('?toolkit=AcmeIssueTracker&format=anthropic');
      expect(anthropic.items[0].formatted_schema).toHaveProperty('input_schema');
    });

    it("keeps the server's outputSchema and annotations in the mcp format, and only there", async () => {
      const mcpFormat = await specs('?toolkit=AcmeIssueTracker&format=mcp&limit=50');
      const byName = (name: string) =>
        mcpFormat.items.find((s) => s.name === name)!.formatted_schema as unknown as Record<
          string,
          unknown
        >;
      expect(byName('Add').annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
      expect(byName('SearchIssues').outputSchema).toEqual({
        type: 'object',
        properties: { received: { type: 'object' } },
        required: ['received'],
      });
      expect(byName('SearchIssues')).not.toHaveProperty('annotations');
      const openai = await specs('?toolkit=AcmeIssueTracker&limit=50');
      for (const item of openai.items) {
        expect(JSON.stringify(item.formatted_schema)).not.toContain('readOnlyHint');
      }
    });

    it('lets an agent attach an MCP tool by name', async () => {
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'McpServersEverything.Echo' }))
        .expect(201);
      expect(res.body.data).toMatchObject({ name: 'McpServersEverything.Echo' });
    });
  });

  describe('McpToolkits.call', () => {
    const options = { timeoutMs: 10_000 };

    it('returns the single text of a result', async () => {
      await expect(mcp.call('everything', 'echo', { message: 'hi' }, options)).resolves.toEqual({
        value: 'Echo: hi',
      });
      await expect(mcp.call('tracker', 'add', { a: 2, b: 3 }, options)).resolves.toEqual({
        value: '5',
      });
    });

    it('returns structured content when the tool has some', async () => {
      const outcome = await mcp.call(
        'everything',
        'get-structured-content',
        { location: 'Chicago' },
        options,
      );
      expect(outcome).toEqual({
        value: { temperature: expect.any(Number), conditions: expect.any(String), humidity: 82 },
      });
    });

    it('sends arguments under the tool’s own property names', async () => {
      const outcome = await mcp.call(
        'tracker',
        'search-issues',
        { query: 'crash', page_size: 5, labels: ['bug'] },
        options,
      );
      expect(outcome).toEqual({
        value: { received: { query: 'crash', 'page-size': 5, labels: ['bug'] } },
      });
    });

    it('answers { error } when the tool reports a failure', async () => {
      await expect(mcp.call('tracker', 'fail', {}, options)).resolves.toEqual({
        error: 'The tracker is read-only today.\nTry tomorrow.',
      });
      const invalid = await mcp.call('everything', 'get-sum', { a: 'one' }, options);
      expect(invalid).toEqual({ error: expect.stringContaining('Input validation error') });
    });

    it('throws mcp_timeout when the tool answers too late, and stays usable', async () => {
      const error = await rejection(mcp.call('tracker', 'slow', { ms: 3000 }, { timeoutMs: 200 }));
      expect(error.code).toBe('mcp_timeout');
      await expect(mcp.call('tracker', 'slow', { ms: 0 }, options)).resolves.toEqual({
        value: 'done',
      });
    });

    it('throws mcp_unavailable for a server that is not connected or not configured', async () => {
      expect((await rejection(mcp.call('missing', 'x', {}, options))).code).toBe('mcp_unavailable');
      expect((await rejection(mcp.call('nope', 'x', {}, options))).code).toBe('mcp_unavailable');
    });
  });

  describe('servers that fail, secrets, changes', () => {
    it('starts without the server that cannot start and reports it', () => {
      expect(mcp.status()).toEqual([
        {
          id: 'everything',
          transport: 'stdio',
          state: 'connected',
          toolkit: 'McpServersEverything',
          tools: expect.any(Number),
        },
        {
          id: 'tracker',
          transport: 'http',
          state: 'connected',
          toolkit: 'AcmeIssueTracker',
          tools: 4,
        },
        {
          id: 'missing',
          transport: 'stdio',
          state: 'unavailable',
          tools: 0,
          lastError: expect.stringContaining('ENOENT'),
        },
        { id: 'crashy', transport: 'stdio', state: 'connected', toolkit: 'Crashy', tools: 2 },
      ]);
      expect(t.logs()).toContain('MCP server \\"missing\\" is unavailable');
    });

    it('never logs header or environment values', () => {
      const logs = t.logs();
      expect(logs).toContain('Connected to MCP server \\"tracker\\"');
      expect(logs).not.toContain(HEADER_SECRET);
      expect(logs).not.toContain('tracker-header-secret');
      expect(logs).not.toContain(ENV_SECRET);
    });

    it('starts a stdio server again after its process died', async () => {
      const options = { timeoutMs: 10_000 };
      const before = await mcp.call('crashy', 'whoami', {}, options);
      expect(before).toEqual({ value: expect.stringMatching(/^\d+$/) });
      expect((await rejection(mcp.call('crashy', 'crash', {}, options))).code).toBe(
        'mcp_unavailable',
      );
      expect(mcp.status().find((s) => s.id === 'crashy')!.state).not.toBe('connected');
      const after = await eventually(() => mcp.call('crashy', 'whoami', {}, options), 20_000, 200);
      expect(after).toEqual({ value: expect.stringMatching(/^\d+$/) });
      expect(after).not.toEqual(before);
      // Its tools stayed listed throughout.
      await specNamed('Crashy', 'Whoami');
    });

    it('picks up tools/list_changed', async () => {
      const page = () => t.http().get('/v1/tools/specs?toolkit=AcmeIssueTracker').set(auth);
      const before = await page().expect(200);
      await page().set('If-None-Match', before.headers.etag).expect(304);
      await tracker.addTool({
        tool: {
          name: 'close_issue',
          description: 'Closes an issue.',
          inputSchema: {
            type: 'object',
            properties: { id: { type: 'integer', description: 'Issue number' } },
            required: ['id'],
          },
        },
        run: (args) => ({ content: [{ type: 'text', text: `closed #${String(args.id)}` }] }),
      });
      const spec = await eventually(() => specNamed('AcmeIssueTracker', 'CloseIssue'));
      // The page held before is no longer current: a new body under a new ETag.
      const after = await page().set('If-None-Match', before.headers.etag).expect(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(after.text).toContain('CloseIssue');
      expect(param(spec, 'id')).toMatchObject({
        required: true,
        value_schema: { val_type: 'integer' },
      });
      await expect(
        mcp.call('tracker', 'close_issue', { id: 7 }, { timeoutMs: 5000 }),
      ).resolves.toEqual({ value: 'closed #7' });

      await tracker.removeTool('close_issue');
      await eventually(async () =>
        expect((await toolkitSpecs('AcmeIssueTracker')).map((s) => s.name)).not.toContain(
          'CloseIssue',
        ),
      );
    });

    it('picks up silent changes on refresh', async () => {
      // A refresh that lists the same tools leaves the catalog, and its pages' ETags, as they were.
      const page = () => t.http().get('/v1/tools/specs?toolkit=AcmeIssueTracker').set(auth);
      const before = (await page().expect(200)).headers.etag;
      await mcp.refresh('tracker');
      await page().set('If-None-Match', before).expect(304);
      await tracker.addTool(
        {
          tool: { name: 'ping', description: 'Pings.', inputSchema: { type: 'object' } },
          run: () => ({ content: [{ type: 'text', text: 'pong' }] }),
        },
        { notify: false },
      );
      await mcp.refresh('tracker');
      await specNamed('AcmeIssueTracker', 'Ping');
      await tracker.removeTool('ping', { notify: false });
      await mcp.refresh();
      expect((await toolkitSpecs('AcmeIssueTracker')).map((s) => s.name)).not.toContain('Ping');
    });
  });
});

describe('MCP toolkits: a server that comes up after boot (e2e)', () => {
  let t: TestApp | undefined;
  let late: McpTestServer | undefined;

  afterAll(async () => {
    await t?.close();
    await late?.close();
  });

  it('boots without it, retries, and lists its tools once it is up (periodic refresh too)', async () => {
    const port = await freePort();
    t = await startApp({
      MCP_SERVERS: JSON.stringify([
        { id: 'late', url: `http://127.0.0.1:${port}/mcp`, timeout_ms: 2000 },
      ]),
      MCP_REFRESH_MS: '1000',
    });
    const mcp = t.app.get(McpToolkits);
    const auth = bearer(tokenFor({ org: newOrganization() }));
    const names = async () =>
      (
        (await t!.http().get('/v1/tools/specs?toolkit=AcmeIssueTracker').set(auth).expect(200)).body
          .data.items as Spec[]
      ).map((s) => s.name);

    expect(mcp.status()[0]).toMatchObject({ id: 'late', state: 'unavailable', tools: 0 });
    expect(await names()).toEqual([]);

    late = await McpTestServer.start(issueTrackerTools(), { port });
    await eventually(async () =>
      expect(await names()).toEqual(['Add', 'Fail', 'SearchIssues', 'Slow']),
    );
    expect(mcp.status()[0]).toMatchObject({ state: 'connected', toolkit: 'AcmeIssueTracker' });

    // No notification: only the MCP_REFRESH_MS timer can find this one.
    await late.addTool(
      {
        tool: { name: 'ping', description: 'Pings.', inputSchema: { type: 'object' } },
        run: () => ({ content: [{ type: 'text', text: 'pong' }] }),
      },
      { notify: false },
    );
    await eventually(async () => expect(await names()).toContain('Ping'));

    // Shutting down ends the session on the server instead of leaving it to expire.
    expect(late.sessionCount).toBe(1);
    await t.close();
    t = undefined;
    await eventually(async () => expect(late!.sessionCount).toBe(0));
  });
});
