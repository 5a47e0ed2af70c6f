import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  McpError,
  Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { connect as connectSocket } from 'node:net';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { DataSource } from 'typeorm';
import { AUTHORIZATION_STATUS_META, OAUTH2_URL_META } from '../src/mcp-server/agent-mcp-server';
import { ToolEntity } from '../src/tools/entities/tool.entity';
import { AgentToolChanges } from '../src/mcp-server/agent-tool-changes';
import { AgentMcpEndpoint } from '../src/mcp-server/agent-mcp-endpoint';
import { eventually } from './support/eventually';
import { FakeGraphApi } from './support/fake-graph-api';
import { givenWhatsappChannel } from './support/given';
import { toolRequests } from './support/tool-requests';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const AGENT = 'agent-mcp';
const ALLOWED_ORIGIN = 'https://console.example.com';
const ISSUER = 'https://id.example.com';
const PAGE_SIZE = 2;
const MAX_STREAMS = 2;
const IDLE_MS = 1500;

/** The SDK's client over real HTTP, as an MCP host connects. */
async function connect(
  url: URL,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: 'mcp-server-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: {
      headers: { ...(token && { Authorization: `Bearer ${token}` }), ...headers },
    },
  });
  await client.connect(transport);
  return client;
}

async function listAll(client: Client): Promise<{ tools: Tool[]; pages: number }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== undefined);
  return { tools, pages };
}

describe('The agent MCP server, /v1/agents/{agent_id}/mcp (e2e)', () => {
  let t: TestApp;
  let graph: FakeGraphApi;
  let base: string;
  let org: string;
  let token: string;
  let auth: Record<string, string>;
  const clients: Client[] = [];

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startApp({
      GRAPH_API_URL: graph.url,
      PUBLIC_URL: 'https://agentline.example.com',
      JWT_ISSUER: ISSUER,
      MCP_ALLOWED_ORIGINS: `${ALLOWED_ORIGIN}, https://other.example.com`,
      MCP_TOOLS_PAGE_SIZE: String(PAGE_SIZE),
      MCP_MAX_STREAMS_PER_ORGANIZATION: String(MAX_STREAMS),
      MCP_STREAM_IDLE_TIMEOUT_MS: String(IDLE_MS),
      OAUTH_GOOGLE_CLIENT_ID: 'google-client',
      OAUTH_GOOGLE_CLIENT_SECRET: 'google-secret',
    });
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });
  beforeEach(() => {
    org = newOrganization();
    token = tokenFor({ org, sub: 'dana', options: { issuer: ISSUER } });
    auth = bearer(token);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  const endpoint = (agent = AGENT) => new URL(`${base}/v1/agents/${agent}/mcp`);
  const client = async (as = token, agent = AGENT, headers: Record<string, string> = {}) => {
    const connected = await connect(endpoint(agent), as, headers);
    clients.push(connected);
    return connected;
  };
  /** A raw JSON-RPC POST, as no SDK client would send it. */
  const post = (body: unknown) =>
    t
      .http()
      .post(`/v1/agents/${AGENT}/mcp`)
      .set(auth)
      .set('Accept', 'application/json, text/event-stream')
      .send(body as object);
  const { attach, executions } = toolRequests(
    () => t,
    () => auth,
  );
  const agentlineTools = async () =>
    (
      await t
        .http()
        .get('/v1/tools/specs?format=mcp&toolkit=Agentline&limit=100')
        .set(auth)
        .expect(200)
    ).body.data.items.map((item: { formatted_schema: Tool }) => item.formatted_schema) as Tool[];
  /** The tool as GET /v1/tools/specs?format=mcp shows it. */
  const catalogTool = async (name: string) => {
    const toolkit = name.split('.')[0];
    const res = await t
      .http()
      .get(`/v1/tools/specs?format=mcp&toolkit=${toolkit}&limit=100`)
      .set(auth)
      .expect(200);
    const items = res.body.data.items as { qualified_name: string; formatted_schema: Tool }[];
    return items.find((item) => item.qualified_name === name)!.formatted_schema;
  };

  it('walks issue 21 as a new user: two tools attached, listed with the toolkit, a follow-up scheduled and a tool run, both recorded', async () => {
    const math = await attach('Math.Calculate', { agent_id: AGENT });
    await attach('Time.CurrentTime', { agent_id: AGENT });
    const channel = await givenWhatsappChannel(t, auth, { agent_id: AGENT });
    const mcp = await client();

    const { tools } = await listAll(mcp);
    const agentline = (await agentlineTools()).map((tool) => tool.name);
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['Math_Calculate', 'Time_CurrentTime', ...agentline].sort(),
    );

    const scheduled = await mcp.callTool({
      name: 'Agentline_ScheduleFollowUp',
      arguments: {
        channel_id: channel.id,
        client_phone_numbers: ['+34612345678'],
        frequency: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=10;BYMINUTE=0',
        prompt: 'Remind them of the spring sale.',
        title: 'Spring sale',
        time_zone: 'Europe/Madrid',
      },
    });
    expect(scheduled.isError).toBeFalsy();
    const followUp = scheduled.structuredContent as { id: string; agent_id: string };
    expect(followUp.agent_id).toBe(AGENT);
    await t.http().get(`/v1/scheduler/follow-up/whatsapp/${followUp.id}`).set(auth).expect(200);

    const ran = await mcp.callTool({ name: 'Math_Calculate', arguments: { expression: '6 * 7' } });
    expect(ran.structuredContent).toEqual({ result: 42 });
    expect((await executions(math.id)).items).toEqual([
      expect.objectContaining({ status: 'succeeded', mcp_request_id: expect.any(String) }),
    ]);
  });

  describe('tools/list', () => {
    it("lists the agent's completed tools and the Agentline toolkit, as format=mcp shows them, page by page", async () => {
      await attach('Math.Calculate', { agent_id: AGENT });
      await attach('Time.CurrentTime', { agent_id: AGENT });
      // Not usable yet: no API key (not_started); another agent's tool is not this agent's.
      await attach('Weather.GetCurrentWeather', { agent_id: AGENT });
      await attach('Math.Calculate', { agent_id: 'agent-other' });
      const mcp = await client();

      const { tools, pages } = await listAll(mcp);

      const expected = [
        await catalogTool('Math.Calculate'),
        await catalogTool('Time.CurrentTime'),
        ...(await agentlineTools()),
      ].sort((a, b) => (a.name < b.name ? -1 : 1));
      expect(tools).toEqual(expected);
      expect(tools.map((tool) => tool.name)).not.toContain('Weather_GetCurrentWeather');
      expect(pages).toBe(Math.ceil(expected.length / PAGE_SIZE));
    });

    it('gives an agent with no tools the Agentline toolkit', async () => {
      const { tools } = await listAll(await client(token, 'agent-new'));
      expect(tools).toEqual(await agentlineTools());
    });

    it('refuses a cursor it did not give', async () => {
      const mcp = await client();
      await expect(mcp.listTools({ cursor: '!!not-a-cursor' })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
      });
    });

    it("shows another organization's token none of the agent's tools", async () => {
      await attach('Math.Calculate', { agent_id: AGENT });
      const stranger = tokenFor({ org: newOrganization(), options: { issuer: ISSUER } });
      const { tools } = await listAll(await client(stranger));
      expect(tools.map((tool) => tool.name)).not.toContain('Math_Calculate');
      await expect(
        (await client(stranger)).callTool({
          name: 'Math_Calculate',
          arguments: { expression: '1 + 1' },
        }),
      ).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    });
  });

  describe('tools/call', () => {
    it('runs the tool as execute does: structuredContent, JSON text, and the execution recorded with the request id', async () => {
      const tool = await attach('Math.Calculate', { agent_id: AGENT });
      const mcp = await client();

      const result = await mcp.callTool({
        name: 'Math_Calculate',
        arguments: { expression: '(1200 * 0.075) / 12' },
      });

      expect(result).toMatchObject({
        structuredContent: { result: 7.5 },
        content: [{ type: 'text', text: '7.5' }],
      });
      expect(result.isError).toBeFalsy();
      const page = await executions(tool.id);
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({
        id: (result._meta as Record<string, string>)['dev.agentline/execution_id'],
        status: 'succeeded',
        output: { value: 7.5 },
        created_by: 'dana',
        mcp_request_id: expect.stringMatching(/^\d+$/),
      });
    });

    it("answers the tool's own failure as an isError result, recorded too", async () => {
      const tool = await attach('Math.Calculate', { agent_id: AGENT });
      const result = await (
        await client()
      ).callTool({
        name: 'Math_Calculate',
        arguments: { expression: '1 +' },
      });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0].text).toEqual(expect.any(String));
      expect((await executions(tool.id)).items[0]).toMatchObject({ status: 'failed' });
    });

    it('answers an unknown tool and bad input with JSON-RPC InvalidParams', async () => {
      await attach('Math.Calculate', { agent_id: AGENT });
      const mcp = await client();
      const unknown = mcp.callTool({ name: 'Weather_GetForecast', arguments: {} });
      await expect(unknown).rejects.toBeInstanceOf(McpError);
      await expect(unknown).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
      await expect(mcp.callTool({ name: 'Nothing_Here', arguments: {} })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
      });
      const bad = mcp.callTool({ name: 'Math_Calculate', arguments: { expression: 5 } });
      await expect(bad).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        data: {
          code: 'validation_failed',
          errors: [expect.objectContaining({ field: expect.stringContaining('expression') })],
        },
      });
    });

    it('answers a name no formatted name could be as an unknown tool, at once', async () => {
      const mcp = await client();
      await expect(
        mcp.callTool({ name: '_'.repeat(200_000), arguments: {} }),
      ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { code: 'unknown_tool' } });
    });

    it('refuses arguments holding a NUL or an unpaired surrogate, before running the tool', async () => {
      const math = await attach('Math.Calculate', { agent_id: AGENT });
      const mcp = await client();
      for (const expression of ['1+1\u0000', '1+1\ud800']) {
        await expect(
          mcp.callTool({ name: 'Math_Calculate', arguments: { expression } }),
        ).rejects.toMatchObject({
          code: ErrorCode.InvalidParams,
          data: {
            code: 'validation_failed',
            errors: [expect.objectContaining({ field: 'arguments.expression' })],
          },
        });
      }
      expect((await executions(math.id)).items).toEqual([]);
    });

    it('refuses an id with a NUL, one too long or an unsafe integer, before running the tool', async () => {
      const math = await attach('Math.Calculate', { agent_id: AGENT });
      for (const id of ['a\u0000b', 'x'.repeat(201), 2 ** 53, 1.5]) {
        const res = await post({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'Math_Calculate', arguments: { expression: '1+1' } },
        }).expect(400);
        expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      }
      expect((await executions(math.id)).items).toEqual([]);
      const ok = await post({
        jsonrpc: '2.0',
        id: 'x'.repeat(200),
        method: 'tools/call',
        params: { name: 'Math_Calculate', arguments: { expression: '1+1' } },
      }).expect(200);
      expect(ok.body).toMatchObject({
        id: 'x'.repeat(200),
        result: { structuredContent: { result: 2 } },
      });
    });

    it('answers a tool whose authorization is pending with its oauth2_url, in its text and _meta', async () => {
      const tool = await attach('Google.ListCalendarEvents', { agent_id: AGENT });
      expect(tool.authorization_status).toBe('pending');
      const pendingUrl = (await t.http().get(`/v1/tools/${tool.id}`).set(auth).expect(200)).body
        .data.oauth2_url as string;
      const attachments = t.app.get(DataSource).getRepository(ToolEntity);
      // Listed while completed: the client keeps its outputSchema, and checks results against it.
      await attachments.update(
        { id: tool.id, organizationId: org },
        { authorizationStatus: 'completed' },
      );
      const mcp = await client();
      const listed = (await listAll(mcp)).tools.find((x) => x.name === 'Google_ListCalendarEvents');
      expect(listed?.outputSchema).toBeDefined();
      await attachments.update(
        { id: tool.id, organizationId: org },
        { authorizationStatus: 'pending' },
      );

      const result = await mcp.callTool({ name: 'Google_ListCalendarEvents', arguments: {} });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(pendingUrl).toMatch(/^https:\/\/accounts\.google\.com\//);
      expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining(pendingUrl) }]);
      expect(result._meta).toEqual({
        [AUTHORIZATION_STATUS_META]: 'pending',
        [OAUTH2_URL_META]: pendingUrl,
      });
      expect((await executions(tool.id)).total_count).toBe(0);
    });

    it('runs an Agentline tool for the agent, attaching it on first use, and tells no stream', async () => {
      const told: string[] = [];
      const unsubscribe = t.app
        .get(AgentToolChanges)
        .subscribe(org, AGENT, () => told.push('changed'));
      const mcp = await client();
      const result = await mcp.callTool({
        name: 'Agentline_PreviewSchedule',
        arguments: { frequency: 'daily', count: 2, from: Date.UTC(2025, 0, 1) },
      });
      expect(result.isError).toBeFalsy();
      expect(
        Array.isArray((result.structuredContent as { occurrences?: unknown }).occurrences),
      ).toBe(true);
      const cancel = await mcp.callTool({
        name: 'Agentline_CancelFollowUp',
        arguments: { follow_up_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' },
      });
      expect(cancel).toMatchObject({
        isError: true,
        content: [{ text: 'Follow-up was not found.' }],
      });
      const attached = (await t.http().get(`/v1/tools?agent_id=${AGENT}`).set(auth).expect(200))
        .body.data.items as { id: string; name: string; created_by: string }[];
      expect(attached.map((tool) => tool.name).sort()).toEqual([
        'Agentline.CancelFollowUp',
        'Agentline.PreviewSchedule',
      ]);
      const preview = attached.find((tool) => tool.name === 'Agentline.PreviewSchedule')!;
      expect(preview.created_by).toBe('dana');
      expect((await executions(preview.id)).items[0]).toMatchObject({ status: 'succeeded' });
      // tools/list shows the toolkit attached or not: nothing changed for the client.
      unsubscribe();
      expect(told).toEqual([]);
    });
  });

  describe('authorization discovery', () => {
    const challenge = (agent: string) =>
      `Bearer resource_metadata="https://agentline.example.com/.well-known/oauth-protected-resource/v1/agents/${agent}/mcp"`;

    it('answers 401 without a valid token, naming the protected resource metadata', async () => {
      for (const headers of [{}, { Authorization: 'Bearer not-a-jwt' }]) {
        const res = await t
          .http()
          .post(`/v1/agents/${AGENT}/mcp`)
          .set(headers)
          .set('Accept', 'application/json, text/event-stream')
          .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
          .expect(401);
        expect(res.headers['www-authenticate']).toBe(challenge(AGENT));
        expect(res.body).toMatchObject({ code: 'unauthorized' });
      }
      const stream = await t.http().get(`/v1/agents/${AGENT}/mcp`).expect(401);
      expect(stream.headers['www-authenticate']).toBe(challenge(AGENT));
      // Other routes keep the plain challenge.
      const rest = await t.http().get('/v1/tools').expect(401);
      expect(rest.headers['www-authenticate']).toBe('Bearer');
    });

    it('fails the SDK client without a token', async () => {
      await expect(connect(endpoint(), undefined)).rejects.toThrow(/401|Unauthorized/i);
    });

    it('serves the RFC 9728 document', async () => {
      const res = await t
        .http()
        .get(`/.well-known/oauth-protected-resource/v1/agents/${AGENT}/mcp`)
        .expect(200);
      expect(res.body).toEqual({
        resource: `https://agentline.example.com/v1/agents/${AGENT}/mcp`,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ['header'],
        resource_name: `agentline MCP server of agent ${AGENT}`,
        resource_documentation: 'https://agentline.example.com/docs',
      });
    });
    it('names one resource in the challenge and the document for an agent id with reserved characters', async () => {
      const agent = "a:b@c!d'e(f)g*h";
      const res = await t
        .http()
        .post(`/v1/agents/${agent}/mcp`)
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        .expect(401);
      expect(res.headers['www-authenticate']).toBe(challenge(agent));
      const metadata = /resource_metadata="https:\/\/agentline\.example\.com([^"]+)"/.exec(
        res.headers['www-authenticate'] as string,
      )![1];
      const doc = await t.http().get(metadata).expect(200);
      expect(doc.body.resource).toBe(`https://agentline.example.com/v1/agents/${agent}/mcp`);
    });
  });

  describe('Origin', () => {
    it('refuses an Origin that is neither PUBLIC_URL’s nor allowed, before the token', async () => {
      for (const origin of ['https://evil.example.net', 'null', 'http://agentline.example.com']) {
        const res = await t
          .http()
          .post(`/v1/agents/${AGENT}/mcp`)
          .set('Origin', origin)
          .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
          .expect(403);
        expect(res.body).toMatchObject({ code: 'forbidden' });
      }
      await expect(
        connect(endpoint(), token, { Origin: 'https://evil.example.net' }),
      ).rejects.toThrow(/403/);
    });

    it('lets PUBLIC_URL’s origin, an allowed one and none through', async () => {
      for (const origin of [
        'https://agentline.example.com',
        ALLOWED_ORIGIN,
        'https://other.example.com',
      ]) {
        const { tools } = await listAll(await client(token, AGENT, { Origin: origin }));
        expect(tools.length).toBeGreaterThan(0);
      }
    });
  });

  describe('the transport', () => {
    it('answers DELETE 405: the server keeps no sessions', async () => {
      const res = await t.http().delete(`/v1/agents/${AGENT}/mcp`).set(auth).expect(405);
      expect(res.headers.allow).toBe('GET, POST');
    });

    it('refuses a body over 1 MiB with 413', async () => {
      await t
        .http()
        .post(`/v1/agents/${AGENT}/mcp`)
        .set(auth)
        .set('Accept', 'application/json, text/event-stream')
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { pad: 'x'.repeat(1_100_000) },
        })
        .expect(413);
    });

    it('refuses a JSON-RPC batch with 400, and still serves after one with a repeated id', async () => {
      const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} };
      const res = await post([call, call]).expect(400);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/batches are not supported/) },
      });
      await post([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]).expect(400);
      // Give an unhandled rejection, had there been one, its turn to end the process.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { tools } = await listAll(await client());
      expect(tools.length).toBeGreaterThan(0);
    });

    it('rejects a path agent id that no body would take', async () => {
      const res = await t
        .http()
        .post(`/v1/agents/${'a'.repeat(201)}/mcp`)
        .set(auth)
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        .expect(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'agent_id' })]);
    });
  });

  describe('the event stream', () => {
    const openStream = (as = auth) =>
      fetch(endpoint(), { headers: { ...as, Accept: 'text/event-stream' } });

    it('tells the client when the agent’s tools change', async () => {
      const mcp = await client();
      const told: string[] = [];
      mcp.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
        told.push(notification.method);
      });
      const changes = t.app.get(AgentToolChanges);
      // The client opens its stream after initializing; publish until it has heard.
      await eventually(async () => {
        await changes.publish(org, AGENT);
        expect(told).toContain('notifications/tools/list_changed');
      });
      // Another agent's change is not this one's.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = told.length;
      await changes.publish(org, 'agent-other');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(told).toHaveLength(before);
      // The idle stream ends; the SDK client opens another, which is told too.
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 200));
      await eventually(async () => {
        await changes.publish(org, AGENT);
        expect(told.length).toBeGreaterThan(before);
      });
    });

    it('holds at most MCP_MAX_STREAMS_PER_ORGANIZATION streams, and ends an idle one', async () => {
      // A GET the transport refuses (no Accept: text/event-stream) holds no place:
      // both places are still free below.
      const refusedByTransport = await fetch(endpoint(), { headers: auth });
      expect(refusedByTransport.status).toBe(406);
      const open = await Promise.all(Array.from({ length: MAX_STREAMS }, () => openStream()));
      for (const res of open) expect(res.status).toBe(200);
      const refused = await openStream();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toEqual(expect.any(String));
      // The limit that refused it, after the request limit that counted it (the IETF draft's
      // fields are lists: one item per policy).
      expect(refused.headers.get('ratelimit-policy')).toMatch(
        new RegExp(
          `^"organization";q=\\d+;w=60, "mcp-streams";q=${MAX_STREAMS};qu="concurrent-requests"$`,
        ),
      );
      expect(refused.headers.get('ratelimit')).toMatch(
        /^"organization";r=\d+;t=\d+, "mcp-streams";r=0$/,
      );
      await refused.body?.cancel();
      // Another organization has its own count.
      const other = await openStream(bearer(tokenFor({ options: { issuer: ISSUER } })));
      expect(other.status).toBe(200);
      await other.body?.cancel();
      // Idle streams end on their own; their places are free again.
      await Promise.all(open.map((res) => res.text()));
      const again = await openStream();
      expect(again.status).toBe(200);
      await again.body?.cancel();
    });

    it('tells the client on every stream it opens: what changed while it had none is not lost', async () => {
      // Attached before the client connects: no stream was open to be told.
      await attach('Math.Calculate', { agent_id: AGENT });
      const mcp = await client();
      const told: string[] = [];
      mcp.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
        told.push(notification.method);
      });
      await eventually(async () => expect(told).toEqual(['notifications/tools/list_changed']));
      // The idle stream ends and the SDK client opens another (a deploy or a dropped connection
      // alike): that one is told too, with nothing published.
      await eventually(async () => expect(told.length).toBeGreaterThan(1));
    });

    it('ends the stream when its token expires, busy or not', async () => {
      const shortLived = tokenFor({ org, sub: 'dana', options: { issuer: ISSUER, expiresIn: 2 } });
      const res = await openStream(bearer(shortLived));
      expect(res.status).toBe(200);
      const changes = t.app.get(AgentToolChanges);
      // Changes keep it from going idle.
      const busy = setInterval(() => void changes.publish(org, AGENT), IDLE_MS / 4);
      try {
        const ended = await Promise.race([
          res.text().then(() => 'ended'),
          new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000)),
        ]);
        expect(ended).toBe('ended');
      } finally {
        clearInterval(busy);
        await res.body?.cancel().catch(() => undefined);
      }
    });

    it('keeps the stream of a token valid for longer than a Node timer can wait (60 days)', async () => {
      const longLived = tokenFor({
        org,
        sub: 'dana',
        options: { issuer: ISSUER, expiresIn: 60 * 24 * 3600 },
      });
      const res = await openStream(bearer(longLived));
      expect(res.status).toBe(200);
      try {
        const ended = await Promise.race([
          res.text().then(() => 'ended'),
          new Promise((resolve) => setTimeout(() => resolve('still open'), 1_000)),
        ]);
        expect(ended).toBe('still open');
      } finally {
        await res.body?.cancel().catch(() => undefined);
      }
    });

    // Last in this block: the endpoint is shutting down after it.
    it('ends open streams at shutdown, and one opened then at once (held, it would keep the process from exiting)', async () => {
      const open = await openStream();
      expect(open.status).toBe(200);
      const changes = t.app.get(AgentToolChanges);
      // Changes keep the streams from going idle: only the shutdown ends them.
      const busy = setInterval(() => void changes.publish(org, AGENT), IDLE_MS / 4);
      const ends = (res: Response) =>
        Promise.race([
          res.text().then(() => 'ended'),
          new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000)),
        ]);
      try {
        t.app.get(AgentMcpEndpoint).onModuleDestroy();
        await expect(ends(open)).resolves.toBe('ended');
        const reopened = await openStream();
        expect(reopened.status).toBe(200);
        await expect(ends(reopened)).resolves.toBe('ended');
      } finally {
        clearInterval(busy);
      }
    });
  });
});

describe('The agent MCP server, a client that leaves while its token is checked (e2e)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const KIDS = ['k1', 'k2', 'k3', 'k4'];
  let jwks: Server;
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    // A slow key set, one kid per token: each first use fetches it, and the client is gone by then.
    jwks = createServer((_req, res) => {
      const jwk = publicKey.export({ format: 'jwk' });
      setTimeout(() => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ keys: KIDS.map((kid) => ({ ...jwk, kid, alg: 'ES256' })) }));
      }, 150);
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    t = await startApp({
      JWT_SECRET: undefined,
      JWT_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
      MCP_MAX_STREAMS_PER_ORGANIZATION: '1',
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
    jwks.close();
  });

  it('frees the place of a stream whose client left before it opened', async () => {
    const org = newOrganization();
    const sign = (kid: string) =>
      jwt.sign({ organization_id: org }, privateKey, {
        algorithm: 'ES256',
        subject: 'dana',
        expiresIn: '1h',
        keyid: kid,
      });
    // More than MCP_MAX_STREAMS_PER_ORGANIZATION (1) clients that send the GET and leave at once.
    for (const kid of KIDS.slice(1)) {
      await new Promise<void>((resolve, reject) => {
        const socket = connectSocket(port, '127.0.0.1', () => {
          socket.end(
            `GET /v1/agents/${AGENT}/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
              `Authorization: Bearer ${sign(kid)}\r\nAccept: text/event-stream\r\n\r\n`,
          );
          setTimeout(() => socket.destroy(), 20);
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
    }
    // Each one's token is checked by now, and what it took is free again.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const res = await fetch(`http://127.0.0.1:${port}/v1/agents/${AGENT}/mcp`, {
      headers: { ...bearer(sign('k1')), Accept: 'text/event-stream' },
    });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});
