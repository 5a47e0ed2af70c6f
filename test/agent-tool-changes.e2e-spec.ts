import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AddressInfo } from 'node:net';
import { AgentToolChanges } from '../src/tools';
import { TOOL_CHANGES_APPLICATION_NAME } from '../src/tools/agent-tool-changes';
import { OAuth2GrantsService } from '../src/tools/oauth2/oauth2-grants.service';
import { eventually } from './support/eventually';
import { aTool } from './support/factories';
import { ManualClock } from './support/manual-clock';
import { McpTestServer } from './support/mcp-test-server';
import {
  followToCallback,
  GOOGLE_STAND_IN,
  googleEnv,
  OidcProvider,
  startGoogleStandIn,
} from './support/oidc-provider';
import { onPostgres, queryOn } from './support/replica-processes';
import { TcpProxy } from './support/tcp-proxy';
import {
  bearer,
  createTestDatabase,
  newOrganization,
  startApp,
  TestApp,
  tokenFor,
} from './support/test-app';

/**
 * An agent's tool changes reach whoever listens for that agent (the MCP server's event streams):
 * in this process at once, and on every replica of one PostgreSQL database through LISTEN/NOTIFY.
 */

/** Long enough for a notification that should not come (or come twice) to have arrived. */
const SETTLE_MS = 400;
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/** Counts what one (organization, agent) subscriber of `app` is told. */
function listen(app: TestApp, organizationId: string, agentId = 'agent-1') {
  let told = 0;
  const stop = app.app.get(AgentToolChanges).subscribe(organizationId, agentId, () => told++);
  return { told: () => told, stop };
}

const attach = async (app: TestApp, org: string, overrides: Record<string, unknown> = {}) =>
  (
    await app
      .http()
      .post('/v1/tools')
      .set(bearer(tokenFor({ org })))
      .send(aTool(overrides))
      .expect(201)
  ).body.data as { id: string; authorization_status: string; oauth2_url: string };

const remove = (app: TestApp, org: string, id: string) =>
  app
    .http()
    .delete(`/v1/tools/${id}`)
    .set(bearer(tokenFor({ org })))
    .expect(204);

/** Walks the user through the provider's consent to the callback, on `app`. */
async function consent(app: TestApp, tool: { oauth2_url: string }): Promise<void> {
  const callback = await followToCallback(tool.oauth2_url, GOOGLE_STAND_IN.callback);
  await app.http().get(`${callback.pathname}${callback.search}`).expect(200);
}

const getTool = async (app: TestApp, org: string, id: string) =>
  (
    await app
      .http()
      .get(`/v1/tools/${id}`)
      .set(bearer(tokenFor({ org })))
      .expect(200)
  ).body.data as { authorization_status: string };

describe('Agent tool changes (e2e)', () => {
  let oidc: OidcProvider;
  let clock: ManualClock;
  let t: TestApp;
  let org: string;

  beforeAll(async () => {
    oidc = await startGoogleStandIn({ accessTokenTtl: 3600 });
    clock = new ManualClock();
    t = await startApp(googleEnv(oidc), { clock });
  });
  afterAll(async () => {
    await t?.close();
    await oidc?.close();
  });
  beforeEach(() => (org = newOrganization()));
  afterEach(() => oidc.control({ revokeRefreshTokens: false }));

  it("tells the agent's listeners once when a tool is attached, and no one else", async () => {
    const agent = listen(t, org);
    const otherAgent = listen(t, org, 'agent-2');
    const otherOrganization = listen(t, newOrganization());

    await attach(t, org);
    // Before the answer: a client told re-lists at once, and must see the tool.
    expect(agent.told()).toBe(1);
    await settle(); // on PostgreSQL its own notification comes back, and is not delivered again
    expect([agent.told(), otherAgent.told(), otherOrganization.told()]).toEqual([1, 0, 0]);
  });

  it('tells them when a tool is removed; another organization cannot remove it', async () => {
    const tool = await attach(t, org);
    const agent = listen(t, org);
    await t
      .http()
      .delete(`/v1/tools/${tool.id}`)
      .set(bearer(tokenFor({ org: newOrganization() })))
      .expect(404);
    expect(agent.told()).toBe(0);
    await remove(t, org, tool.id);
    expect(agent.told()).toBe(1);
  });

  it('stops telling a listener that unsubscribed, and a listener that throws stops no other', async () => {
    const changes = t.app.get(AgentToolChanges);
    const stopped = listen(t, org);
    stopped.stop();
    stopped.stop(); // twice is harmless
    const failing = changes.subscribe(org, 'agent-1', () => {
      throw new Error('stream already closed');
    });
    const after = listen(t, org);

    await attach(t, org);
    expect([stopped.told(), after.told()]).toEqual([0, 1]);
    failing();
  });

  it('tells them when an authorization completes, starts again, or is refused at a refresh', async () => {
    const agent = listen(t, org);
    const tool = await attach(t, org, { name: 'Google.SendEmail' });
    expect([tool.authorization_status, agent.told()]).toEqual(['pending', 1]);

    await consent(t, tool);
    expect((await getTool(t, org, tool.id)).authorization_status).toBe('completed');
    expect(agent.told()).toBe(2);

    // Covered by the agent's grant: completed again at once.
    await t
      .http()
      .post(`/v1/tools/${tool.id}/authorize`)
      .set(bearer(tokenFor({ org })))
      .expect(200);
    expect(agent.told()).toBe(3);

    await oidc.control({ revokeRefreshTokens: true });
    clock.advance(3600 * 1000 + 60_000);
    expect(await t.app.get(OAuth2GrantsService).accessToken(org, 'agent-1', 'google')).toBeNull();
    expect((await getTool(t, org, tool.id)).authorization_status).toBe('failed');
    expect(agent.told()).toBe(4);
  });

  it('counts the same function subscribed twice as two listeners, each stopped on its own', async () => {
    const changes = t.app.get(AgentToolChanges);
    let told = 0;
    const listener = () => told++;
    const first = changes.subscribe(org, 'agent-1', listener);
    const second = changes.subscribe(org, 'agent-1', listener);
    await changes.publish(org, 'agent-1');
    expect(told).toBe(2);
    first();
    await changes.publish(org, 'agent-1');
    expect(told).toBe(3);
    second();
    await changes.publish(org, 'agent-1');
    expect(told).toBe(3);
  });
});

describe('Agent tool changes when an MCP server changes its tools (e2e)', () => {
  let tracker: McpTestServer;
  let t: TestApp;

  beforeAll(async () => {
    tracker = await McpTestServer.start();
    t = await startApp({ MCP_SERVERS: JSON.stringify([{ id: 'tracker', url: tracker.url }]) });
  });
  afterAll(async () => {
    await t?.close();
    await tracker?.close();
  });

  it("tells every listener of this process, as any agent's tool may be the server's", async () => {
    const listeners = [listen(t, newOrganization()), listen(t, newOrganization(), 'agent-2')];
    await tracker.addTool({
      tool: { name: 'ping', description: 'Pings.', inputSchema: { type: 'object' } },
      run: () => ({ content: [{ type: 'text', text: 'pong' }] }),
    });
    await eventually(async () => expect(listeners.map((l) => l.told())).toEqual([1, 1]));

    // Listed again unchanged: no one is told.
    await tracker.removeTool('absent');
    await settle();
    expect(listeners.map((l) => l.told())).toEqual([1, 1]);
  });
});

onPostgres('Agent tool changes on replicas (e2e, PostgreSQL)', () => {
  let oidc: OidcProvider;
  let database: { url: string; drop: () => Promise<void> };
  let a: TestApp;
  let b: TestApp;
  let org: string;

  /** The LISTEN connections of the replicas, ended as a database restart or a network cut would. */
  const killListeners = () =>
    queryOn(database.url)<{ ended: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
        WHERE application_name = $1 AND datname = current_database()`,
      [TOOL_CHANGES_APPLICATION_NAME],
    );
  const listeners = () =>
    queryOn(database.url)<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [TOOL_CHANGES_APPLICATION_NAME],
    );

  beforeAll(async () => {
    oidc = await startGoogleStandIn();
    database = (await createTestDatabase())!;
    const env = { DATABASE_URL: database.url, ...googleEnv(oidc) };
    a = await startApp(env);
    b = await startApp(env);
    // Each replica listens on a connection of its own, outside its pool.
    await eventually(async () => expect(await listeners()).toHaveLength(2));
  });
  afterAll(async () => {
    for (const app of [a, b]) await app?.close();
    await database?.drop();
    await oidc?.close();
  });
  beforeEach(() => (org = newOrganization()));

  it("tells the other replica's listeners of a tool attached here, and no one else", async () => {
    const onB = listen(b, org);
    const otherAgentOnB = listen(b, org, 'agent-2');
    const otherOrganizationOnB = listen(b, newOrganization());

    await attach(a, org);
    await eventually(async () => expect(onB.told()).toBe(1));
    await settle();
    expect([onB.told(), otherAgentOnB.told(), otherOrganizationOnB.told()]).toEqual([1, 0, 0]);
  });

  it('tells them when the OAuth2 callback completes a tool, and when it is removed', async () => {
    const onB = listen(b, org);
    const tool = await attach(a, org, { name: 'Google.SendEmail' });
    expect(tool.authorization_status).toBe('pending');
    await eventually(async () => expect(onB.told()).toBe(1));

    await consent(a, tool);
    expect((await getTool(b, org, tool.id)).authorization_status).toBe('completed');
    await eventually(async () => expect(onB.told()).toBe(2));

    await remove(a, org, tool.id);
    await eventually(async () => expect(onB.told()).toBe(3));
    await settle();
    expect(onB.told()).toBe(3);
  });

  it('listens again after its connection is killed: tells every listener once, then delivers again', async () => {
    const onA = listen(a, org);
    const onB = listen(b, org);
    const before = await listeners();
    expect((await killListeners()).every((row) => row.ended)).toBe(true);

    // Notifications sent while it was away are lost: each listener is told to look again, once.
    await eventually(async () => expect([onA.told(), onB.told()]).toEqual([1, 1]));
    await eventually(async () => {
      const after = await listeners();
      expect(after).toHaveLength(2);
      expect(after.map(({ pid }) => pid)).not.toContain(before[0].pid);
    });
    await settle();
    expect([onA.told(), onB.told()]).toEqual([1, 1]);

    await attach(a, org);
    await eventually(async () => expect(onB.told()).toBe(2));
    await settle();
    expect([onA.told(), onB.told()]).toEqual([2, 2]);
  });

  it('keeps trying while the database is away, and tells its listeners once it is back', async () => {
    const { proxy, url } = await TcpProxy.forDatabaseUrl(database.url);
    const c = await startApp({ DATABASE_URL: url });
    try {
      const onC = listen(c, org);
      proxy.cut();
      // Refused a few times over (its retries start at 100 ms).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await attach(a, org); // sent while c cannot hear it
      expect(onC.told()).toBe(0);
      proxy.restore();
      await eventually(async () => expect(onC.told()).toBe(1));

      await attach(a, org);
      await eventually(async () => expect(onC.told()).toBe(2));
      await settle();
      expect(onC.told()).toBe(2);
      expect(c.logs()).not.toMatch(/\n\s+at /); // no stack traces for an outage
    } finally {
      await c.close();
      await proxy.close();
    }
  });

  it('opens again a LISTEN connection that stops answering without closing, and tells its listeners once', async () => {
    const { proxy, url } = await TcpProxy.forDatabaseUrl(database.url);
    const c = await startApp({ DATABASE_URL: url, DATABASE_LISTEN_CHECK_MS: '300' });
    try {
      const onC = listen(c, org);
      await eventually(async () => expect(await listeners()).toHaveLength(3));
      proxy.stall(); // a NAT forgets the connection: no error, no end
      await attach(a, org); // sent while c cannot hear it
      // Its SELECT 1 goes unanswered: c listens on a new connection and tells its listeners.
      await eventually(async () => expect(onC.told()).toBe(1));
      await attach(a, org);
      await eventually(async () => expect(onC.told()).toBe(2));
      await settle();
      expect(onC.told()).toBe(2);
      expect(c.logs()).toMatch(/does not answer; listening again/);
    } finally {
      proxy.cut();
      await c.close();
      await proxy.close();
    }
  });

  it("tells an MCP client holding replica B's event stream of a third tool attached on replica A", async () => {
    await b.app.listen(0, '127.0.0.1');
    const { port } = b.app.getHttpServer().address() as AddressInfo;
    const agent = 'agent-mcp';
    await attach(a, org, { agent_id: agent, name: 'Math.Calculate' });
    await attach(a, org, { agent_id: agent, name: 'Time.CurrentTime' });

    const client = new Client({ name: 'agent-tool-changes-e2e', version: '1.0.0' });
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    /** What the client listed each time it was told, as a host does. */
    const listedWhenTold: string[][] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      listedWhenTold.push(await names());
    });
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`http://127.0.0.1:${port}/v1/agents/${agent}/mcp`),
        {
          requestInit: { headers: bearer(tokenFor({ org })) },
        },
      ),
    );
    try {
      const before = await names();
      expect(before).toEqual(expect.arrayContaining(['Math_Calculate', 'Time_CurrentTime']));
      // The client opens its event stream after initializing: told once it holds it.
      await eventually(async () => {
        await a.app.get(AgentToolChanges).publish(org, agent);
        expect(listedWhenTold.length).toBeGreaterThan(0);
      });
      await settle();
      listedWhenTold.length = 0;

      await attach(a, org, {
        agent_id: agent,
        name: 'Weather.GetCurrentWeather',
        api_key: 'openweather-key',
      });
      // Told after the commit: the list it reads at once has the third tool.
      const after = [...before, 'Weather_GetCurrentWeather'];
      await eventually(async () => expect(listedWhenTold).toHaveLength(1));
      expect(listedWhenTold[0]).toEqual(expect.arrayContaining(after));
      expect(listedWhenTold[0]).toHaveLength(after.length);
      await settle();
      expect(listedWhenTold).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
