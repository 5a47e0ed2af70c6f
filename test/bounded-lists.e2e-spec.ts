import { aTool } from './support/factories';
import { givenFollowUp, givenWhatsappChannel } from './support/given';
import { issueTrackerTools, McpTestServer } from './support/mcp-test-server';
import { eventually } from './support/eventually';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';
import { ExecutionRecord, toolRequests } from './support/tool-requests';

/** Issue 7, "Costly bodies": executions kept whole made one list answer 78 MB. */
describe('Execution records and list pages are bounded (e2e)', () => {
  let t: TestApp;
  let tracker: McpTestServer;
  let auth: Record<string, string>;
  const { attach, run, executions } = toolRequests(
    () => t,
    () => auth,
  );
  const LIMIT = 64 * 1024;

  beforeAll(async () => {
    // An MCP tool that echoes its arguments: a big input makes a big output.
    tracker = await McpTestServer.start(issueTrackerTools());
    t = await startApp({
      RATE_LIMIT_PER_MINUTE: '0',
      MCP_SERVERS: JSON.stringify([{ id: 'tracker', url: tracker.url }]),
    });
    auth = bearer(tokenFor());
    await eventually(async () => {
      await t.http().get('/v1/tools/specs?toolkit=AcmeIssueTracker').set(auth).expect(200);
      const specs = await t.http().get('/v1/tools/specs?toolkit=AcmeIssueTracker').set(auth);
      expect(specs.body.data.items.length).toBeGreaterThan(0);
    }, 30_000);
  });
  afterAll(async () => {
    await t?.close();
    await tracker?.close();
  });

  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

  it('keeps input and output up to 64 KB each, flags the cut, and answers the caller in full', async () => {
    const tool = await attach('AcmeIssueTracker.SearchIssues');
    const query = 'hello world. '.repeat(15_400);
    const result = await run(tool.id, { query, labels: ['a', 'b'] });
    expect(result.status).toBe('succeeded');
    // The caller (the model) gets the whole output; only the record is shortened.
    expect(JSON.stringify(result.output)).toContain(query);

    const [record] = (await executions(tool.id)).items;
    expect(record.id).toBe(result.execution_id);
    expect(record.truncated).toBe(true);
    expect(bytes(record.input)).toBeLessThanOrEqual(LIMIT);
    expect(bytes(record.output)).toBeLessThanOrEqual(LIMIT);
    expect(record.input.labels).toEqual(['a', 'b']);
    expect(String(record.input.query)).toMatch(/^hello world\. hello world\./);
    expect(String(record.input.query).endsWith('…')).toBe(true);

    const small = await run(tool.id, { query: 'small' });
    const smallRecord = (await executions(tool.id)).items.find((e) => e.id === small.execution_id);
    expect(smallRecord).toMatchObject({ truncated: false, input: { query: 'small' } });
  });

  it('ends a page at about 1 MiB of records; paging by items.length reaches every record once', async () => {
    const tool = await attach('AcmeIssueTracker.SearchIssues');
    const big = 'x'.repeat(60_000);
    const total = 12;
    for (let i = 0; i < total; i++) await run(tool.id, { query: `${i} ${big}` });

    const first = await executions(tool.id, '?limit=200');
    expect(first.total_count).toBe(total);
    // 12 records of ~120 KB (input and output) do not fit in one 1 MiB page.
    expect(first.items.length).toBeGreaterThan(0);
    expect(first.items.length).toBeLessThan(total);
    expect(bytes(first)).toBeLessThan(1.2 * 1024 * 1024);

    const seen: ExecutionRecord[] = [];
    let offset = 0;
    for (let page = 0; page < total && offset < total; page++) {
      const current = await executions(tool.id, `?limit=200&offset=${offset}`);
      expect(current.offset).toBe(offset);
      expect(current.total_count).toBe(total);
      seen.push(...current.items);
      offset += current.items.length;
    }
    expect(new Set(seen.map((e) => e.id)).size).toBe(total);
    // Newest first across pages.
    const times = seen.map((e) => e.created_at);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  /** Pages through a list by `offset + items.length`; answers every id seen, in order. */
  const pageThrough = async (path: string, total: number) => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let offset = 0;
    for (let page = 0; page < total && offset < total; page++) {
      const res = await t
        .http()
        .get(`${path}${path.includes('?') ? '&' : '?'}limit=200&offset=${offset}`)
        .set(auth)
        .expect(200);
      expect(res.body.data).toMatchObject({ offset, total_count: total });
      expect(res.body.data.items.length).toBeGreaterThan(0);
      sizes.push(Buffer.byteLength(res.text));
      seen.push(...res.body.data.items.map((item: { id: string }) => item.id));
      offset += res.body.data.items.length;
    }
    return { seen, sizes };
  };

  it('bounds the tools list in bytes too (params may be 1 MiB each)', async () => {
    const agent = `agent-${Date.now()}`;
    for (let i = 0; i < 4; i++) {
      await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ agent_id: agent, params: { blob: `${i}${'x'.repeat(400_000)}` } }))
        .expect(201);
    }
    const { seen, sizes } = await pageThrough(`/v1/tools?agent_id=${agent}`, 4);
    expect(new Set(seen).size).toBe(4);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(1.2 * 1024 * 1024);
  });

  it('bounds the follow-ups list in bytes too (10,000 numbers each)', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const numbers = Array.from({ length: 10_000 }, (_, i) => `+3461${String(i).padStart(7, '0')}`);
    for (let i = 0; i < 8; i++) {
      await givenFollowUp(t, auth, channel.id, { client_phone_numbers: numbers });
    }
    const { seen, sizes } = await pageThrough(
      `/v1/scheduler/follow-ups?channel_id=${channel.id}`,
      8,
    );
    expect(new Set(seen).size).toBe(8);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(1.3 * 1024 * 1024);
  });
});
