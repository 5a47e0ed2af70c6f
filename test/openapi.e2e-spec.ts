import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { AGENT_EVENT_TYPES } from '../src/agent-events/agent-event.entity';
import { EXAMPLE_EVENTS_SECRET } from '../src/agent-events/agent-events.openapi';
import { agentEventProblems, agentEventValidators } from './support/agent-event-schemas';
import { startApp, TestApp } from './support/test-app';

interface WebhookOperation {
  parameters: { name: string; example: string }[];
  requestBody: { content: { 'application/json': { example: Record<string, unknown> } } };
  responses: Record<string, unknown>;
}

describe('OpenAPI document (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => t.close());

  it('matches the committed openapi.json (run `npm run openapi` after changing the interface)', async () => {
    const served = (await t.http().get('/v1/openapi.json').expect(200)).body;
    const committed = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8'));
    expect(served).toEqual(committed);
  });

  it('documents every operation of the spec with its bearer scheme and problem responses', async () => {
    const doc = (await t.http().get('/v1/openapi.json').expect(200)).body;
    const operations = [
      ['post', '/v1/tools', '201'],
      ['get', '/v1/tools/specs', '200'],
      ['post', '/v1/channels/whatsapp', '201'],
      ['put', '/v1/channels/whatsapp/{id}', '200'],
      ['post', '/v1/channels/messanger', '201'],
      ['put', '/v1/channels/messanger/{id}', '200'],
      ['post', '/v1/scheduler/follow-up/whatsapp', '201'],
      ['get', '/v1/scheduler/preview', '200'],
    ];
    for (const [method, path, success] of operations) {
      const operation = doc.paths[path]?.[method];
      expect({ path, method, documented: Boolean(operation) }).toEqual({
        path,
        method,
        documented: true,
      });
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining([success, '400', '401', '429', '500', '503']),
      );
      expect(operation.responses['401'].content).toHaveProperty(['application/problem+json']);
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('serves the Swagger UI at /docs, titled, calling the host it is opened at', async () => {
    const res = await t.http().get('/docs/').redirects(1);
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger');
    expect(res.text).toContain('<title>agentline API</title>');
    const doc = (await t.http().get('/v1/openapi.json').expect(200)).body;
    expect(doc.openapi).toBe('3.1.0');
    // Relative to the page: 127.0.0.1:3000/docs calls 127.0.0.1, localhost:3000/docs localhost.
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(doc.components.securitySchemes.bearer.description).toContain('npm run token -- --org');
    // 3.1 schemas are JSON Schema: no 3.0 `nullable` is left anywhere.
    expect(JSON.stringify(doc)).not.toMatch(/"nullable":/);
  });

  it('serves its API under the path of PUBLIC_URL, for a proxy that serves agentline under a path and strips it', async () => {
    const prefixed = await startApp({ PUBLIC_URL: 'https://example.com/agentline/' });
    try {
      const doc = (await prefixed.http().get('/v1/openapi.json').expect(200)).body;
      expect(doc.servers).toEqual([{ url: '/agentline', description: expect.any(String) }]);
    } finally {
      await prefixed.close();
    }
  });

  it('says in the summary of every DELETE that it removes', async () => {
    const doc = (await t.http().get('/v1/openapi.json').expect(200)).body;
    const removals = Object.entries(doc.paths as Record<string, { delete?: { summary: string } }>)
      .filter(([, item]) => item.delete)
      .map(([path, item]) => ({ path, summary: item.delete?.summary }));
    expect(removals.length).toBeGreaterThan(0);
    for (const removal of removals) {
      expect(removal).toEqual({ path: removal.path, summary: expect.stringMatching(/^Remove\b/) });
    }
  });

  describe('agent events (webhooks)', () => {
    let webhooks: Record<string, { post: WebhookOperation }>;
    beforeAll(async () => {
      webhooks = (await t.http().get('/v1/openapi.json').expect(200)).body.webhooks;
    });

    it('documents every event type the code emits, with its signature headers', () => {
      expect(Object.keys(webhooks).sort()).toEqual([...AGENT_EVENT_TYPES].sort());
      for (const { post } of Object.values(webhooks)) {
        expect(post.parameters.map((p) => p.name)).toEqual([
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]);
        expect(Object.keys(post.responses)).toContain('2XX');
      }
    });

    it('gives each event an example that matches its schema and is signed as the sender signs it', () => {
      for (const [type, { post }] of Object.entries(webhooks)) {
        const example = post.requestBody.content['application/json'].example;
        expect({ type, problems: agentEventProblems(example) }).toEqual({ type, problems: [] });
        expect(example.type).toBe(type);
        const header = (name: string) => post.parameters.find((p) => p.name === name)?.example;
        // The documented signature is the one of the documented id, timestamp and body.
        expect(header('webhook-signature')).toBe(
          new Webhook(EXAMPLE_EVENTS_SECRET).sign(
            header('webhook-id') as string,
            new Date(Number(header('webhook-timestamp')) * 1000),
            JSON.stringify(example),
          ),
        );
      }
    });

    it('refuses a body that drifted from the schema: a field added, dropped or retyped', () => {
      const example = webhooks['delivery.updated'].post.requestBody.content['application/json']
        .example as { data: Record<string, unknown> };
      expect(agentEventProblems(example)).toEqual([]);
      expect(agentEventProblems({ ...example, data: { ...example.data, cost: 1 } })).toEqual([
        expect.stringContaining('must NOT have additional properties'),
      ]);
      const withoutReadAt = { ...example.data };
      delete withoutReadAt.read_at;
      expect(agentEventProblems({ ...example, data: withoutReadAt })).toEqual([
        expect.stringContaining("must have required property 'read_at'"),
      ]);
      expect(agentEventProblems({ ...example, data: { ...example.data, status: 'lost' } })).toEqual(
        [expect.stringContaining('must be equal to one of the allowed values')],
      );
      // A message's content is one of the documented shapes, each closed.
      const message = webhooks['message.received'].post.requestBody.content['application/json']
        .example as { data: { content: Record<string, unknown> } };
      const withContent = (content: unknown) => ({
        ...message,
        data: { ...message.data, content },
      });
      expect(agentEventProblems(withContent(null))).toEqual([]);
      expect(agentEventProblems(withContent({ payload: 'STOP' }))).toEqual([]);
      expect(
        agentEventProblems(withContent({ ...message.data.content, thumbnail: 'x' })).length,
      ).toBeGreaterThan(0);
      expect(agentEventProblems({ ...example, type: 'delivery.lost' })).toEqual([
        expect.stringContaining('not an event type'),
      ]);
      expect(agentEventValidators().size).toBe(AGENT_EVENT_TYPES.length);
    });

    it('has every event type checked against its schema in an e2e suite that receives it', () => {
      // FakeAgentEndpoint.events(type) checks every event received; each type must be read somewhere.
      const suites = readdirSync(__dirname)
        .filter((file) => file.endsWith('.e2e-spec.ts'))
        .map((file) => readFileSync(join(__dirname, file), 'utf8'))
        .join('\n');
      for (const type of AGENT_EVENT_TYPES) {
        expect({ type, read: suites.includes(`.events('${type}')`) }).toEqual({ type, read: true });
      }
    });
  });
});
