import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { loadToolCatalog } from '../src/tools/catalog/tool-catalog';
import { filled } from '../src/tools/toolkits/builtin-toolkit.testing';
import { aFollowUp } from './support/factories';
import { FakeGithubApi } from './support/fake-github-api';
import { FakeGoogleApi } from './support/fake-google-api';
import { FakeGraphApi } from './support/fake-graph-api';
import { FakeOpenWeatherApi } from './support/fake-openweather-api';
import { FakeSerpApi } from './support/fake-serpapi';
import { FakeSlackApi } from './support/fake-slack-api';
import { givenMessangerChannel, givenWhatsappChannel } from './support/given';
import { completeOAuth2Authorization } from './support/oauth2-authorization';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';
import { toolRequests } from './support/tool-requests';
import { builtinWorstInputs, oauth2Of, providerUrls, requirementsOf } from './support/toolkits';

const HEALTH_WITHIN_MS = 200;
const LEAP_DAY = 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=9;BYMINUTE=0';
/** The key every tool that needs a secret is attached with; the fakes that check one take it. */
const API_KEY = `key-${randomUUID()}`;
/** The token GitHub's fake accepts (the others' fakes take the token they issue). */
const GITHUB_TOKEN = `gho_${randomUUID()}`;
/** A closed port: the provider of a toolkit without a fake here refuses at once (still a run). */
const NOWHERE = 'http://127.0.0.1:9';

/**
 * The costliest input each built-in tool accepts: the built-in toolkits' from their folders
 * (`<toolkit>.testing.ts`), the Agentline toolkit's here. Every tool of the catalog must have one
 * (the first test checks), so that a new tool cannot be forgotten. The channel ids are a WhatsApp
 * and a Messanger channel of the agent.
 */
const WORST_INPUTS: Record<
  string,
  (channelId: string, messangerChannelId: string) => Record<string, unknown>
> = {
  ...builtinWorstInputs(),
  'Agentline.SendWhatsappMessage': (channelId) => ({
    channel_id: channelId,
    to: '+34612345678',
    text: filled('hola ', 4096),
  }),
  // Outside Messenger's window (nobody wrote): refused after the channel and window checks.
  'Agentline.SendMessangerMessage': (_channelId, messangerChannelId) => ({
    channel_id: messangerChannelId,
    to: '6543210987',
    text: filled('hola ', 2000),
  }),
  'Agentline.ScheduleFollowUp': (channelId) => ({
    channel_id: channelId,
    client_phone_numbers: Array.from({ length: 1_000 }, (_, i) => `+3461${2_000_000 + i}`),
    frequency: LEAP_DAY,
    prompt: filled('p', 4096),
    title: filled('t', 200),
    description: filled('d', 2000),
    time_zone: 'Pacific/Chatham',
  }),
  'Agentline.ListFollowUps': () => ({ limit: 200 }),
  'Agentline.CancelFollowUp': () => ({ follow_up_id: randomUUID() }),
  // A leap day only: 500 occurrences walk 2,000 years of calendar (in the preview thread).
  'Agentline.PreviewSchedule': () => ({
    frequency: LEAP_DAY,
    time_zone: 'Pacific/Chatham',
    count: 500,
  }),
};

/**
 * No request can hold the event loop: while the costliest input of each built-in tool runs,
 * /health still answers within 200 ms. Third parties are the loopback fakes (in this process, so
 * their work counts too). The tools run one after another: two dozen large requests sent at once
 * measure throughput (each request's own parsing, checks and storage), not a stalled loop.
 */
describe('Event loop under hostile tool input (e2e)', () => {
  let t: TestApp;
  let graph: FakeGraphApi;
  let weather: FakeOpenWeatherApi;
  let github: FakeGithubApi;
  let serpapi: FakeSerpApi;
  let slack: FakeSlackApi;
  let google: FakeGoogleApi;
  const org = newOrganization();
  const auth = bearer(tokenFor({ org, sub: 'dana' }));
  const { attach, execute } = toolRequests(
    () => t,
    () => auth,
  );

  beforeAll(async () => {
    [graph, weather, github, serpapi, slack, google] = await Promise.all([
      FakeGraphApi.start(),
      FakeOpenWeatherApi.start([API_KEY]),
      FakeGithubApi.start([GITHUB_TOKEN]),
      FakeSerpApi.start([API_KEY]),
      FakeSlackApi.start(),
      FakeGoogleApi.start(),
    ]);
    t = await startApp({
      GRAPH_API_URL: graph.url,
      // The toolkits these fakes stand for; any other's provider is nowhere.
      ...providerUrls(
        {
          Weather: weather.url,
          Github: github.url,
          Search: serpapi.url,
          Slack: slack.url,
          Google: google.url,
        },
        NOWHERE,
      ),
      TOOL_EXECUTION_TIMEOUT_MS: '20000',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await Promise.all([graph, weather, github, serpapi, slack, google].map((fake) => fake.close()));
  });

  /**
   * Asks /health again and again until `request` answers (at least once while it is in flight),
   * and says how long each answer took.
   */
  const healthWhile = async (
    request: PromiseLike<Response>,
  ): Promise<{ res: Response; healthMs: number[] }> => {
    let running = true;
    const answered = Promise.resolve(request).finally(() => (running = false));
    const healthMs: number[] = [];
    do {
      const asked = performance.now();
      await t.http().get('/health').expect(200);
      healthMs.push(Math.round(performance.now() - asked));
    } while (running);
    return { res: await answered, healthMs };
  };

  const builtinTools = () =>
    loadToolCatalog()
      .list({ offset: 0, limit: 1000 })
      .items.filter((spec) => spec.origin.kind === 'builtin')
      .map((spec) => spec.qualifiedName)
      .sort();

  it('has a worst input for every built-in tool of the catalog', () => {
    expect(Object.keys(WORST_INPUTS).sort()).toEqual(builtinTools());
  });

  /**
   * Attaches the tool with what its catalog entry requires: a secret, or a completed OAuth2 grant
   * (issued by the provider's fake, where there is one). The agent holds one grant per provider,
   * so it carries the scopes of all that provider's tools.
   */
  const ready = async (name: string): Promise<string> => {
    const { secrets, authorization } = requirementsOf(name);
    const tool = await attach(name, secrets.length > 0 ? { api_key: API_KEY } : {});
    if (authorization) {
      const provider = authorization.provider_id;
      const scopes = [
        ...new Set(
          builtinTools()
            .filter((other) => requirementsOf(other).authorization?.provider_id === provider)
            .flatMap((other) => oauth2Of(other).scopes),
        ),
      ];
      const token = provider === 'github' ? GITHUB_TOKEN : `token-${randomUUID()}`;
      if (provider === 'slack') slack.issueToken(token, scopes);
      if (provider === 'google') google.issueToken(token, scopes);
      await completeOAuth2Authorization(
        t,
        { id: tool.id, organizationId: org },
        { providerId: provider, accessToken: token, scopes },
      );
    }
    return tool.id;
  };

  it('answers /health within 200 ms while the worst input of each tool runs', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const page = await givenMessangerChannel(t, auth);
    const tools: { name: string; id: string }[] = [];
    for (const name of builtinTools()) tools.push({ name, id: await ready(name) });

    const slow: { name: string; healthMs: number[] }[] = [];
    const notRun: { name: string; status: number; run: unknown }[] = [];
    for (const { name, id } of tools) {
      const { res, healthMs } = await healthWhile(
        execute(id, WORST_INPUTS[name](channel.id, page.id)),
      );
      if (healthMs.some((ms) => ms >= HEALTH_WITHIN_MS)) slow.push({ name, healthMs });
      // A tool run, not a 500 or a refusal; and finished well within its time-out.
      const run = res.body.data as { status: string } | undefined;
      if (res.status !== 200 || run?.status === 'timed_out') {
        notRun.push({ name, status: res.status, run });
      }
    }
    expect({ slow, notRun }).toEqual({ slow: [], notRun: [] });
  }, 120_000);

  /** An object of `n` short keys: 120,000 of them make a body just under the 1 MiB limit. */
  const manyKeys = (n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [i.toString(36), 0]));

  /**
   * Every field that takes caller-defined JSON, with 120,000 keys one level down: class-transformer
   * de-duplicated such keys quadratically (15 s on the event loop for one request).
   */
  const manyKeyBodies = async () => {
    const math = await attach('Math.Calculate');
    return [
      {
        path: '/v1/tools',
        body: { agent_id: 'a', name: 'Math.Calculate', params: { p: manyKeys(120_000) } },
      },
      { path: `/v1/tools/${math.id}/execute`, body: { input: { nested: manyKeys(120_000) } } },
      {
        path: `/v1/tools/${math.id}/execute`,
        body: { input: { expression: 'a', variables: manyKeys(120_000) } },
      },
    ];
  };

  it('answers /health within 200 ms while objects of 120,000 keys arrive in each free-form field', async () => {
    for (const { path, body } of await manyKeyBodies()) {
      const payload = JSON.stringify(body);
      expect(payload.length).toBeGreaterThan(900_000);
      const { res, healthMs } = await healthWhile(
        t.http().post(path).set(auth).set('Content-Type', 'application/json').send(payload),
      );
      expect({ path, status: res.status, code: res.body.code }).toEqual({
        path,
        status: 400,
        code: 'validation_failed',
      });
      expect({ path, slow: healthMs.filter((ms) => ms >= HEALTH_WITHIN_MS) }).toEqual({
        path,
        slow: [],
      });
    }
  });

  it('answers /health within 200 ms while MCP messages of about 1 MiB arrive at /v1/agents/{agent_id}/mcp', async () => {
    await attach('Math.Calculate');
    const call = (id: number, name: string, args: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const messages = [
      // Objects past the 1,000-key bound are refused while parsing, as on every route (400).
      { status: 400, message: call(1, 'Math_Calculate', { variables: manyKeys(120_000) }) },
      { status: 400, message: call(2, 'Nope_Nothing', { nested: manyKeys(120_000) }) },
      // Within it: 999 variables checked against the tool's schema and run.
      {
        status: 200,
        message: call(3, 'Math_Calculate', { expression: 'k1 + k2', variables: manyKeys(999) }),
      },
      // The costliest schedule preview, run by the Agentline toolkit in its thread.
      {
        status: 200,
        message: call(
          4,
          'Agentline_PreviewSchedule',
          WORST_INPUTS['Agentline.PreviewSchedule']('', ''),
        ),
      },
      // A list request with a cursor of about 1 MB.
      {
        status: 200,
        message: {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/list',
          params: { cursor: filled('QQ', 1_000_000) },
        },
      },
      // A tool name of about 1 MB of `_`: unknown before any split of it is looked up.
      { status: 200, message: call(6, '_'.repeat(1_000_000), {}) },
      // A batch is refused before the SDK reads it.
      {
        status: 400,
        message: Array.from({ length: 10 }, (_, i) => ({
          jsonrpc: '2.0',
          id: 10 + i,
          method: 'tools/list',
          params: { cursor: filled('QQ', 100_000) },
        })),
      },
    ];
    for (const { status, message } of messages) {
      const { res, healthMs } = await healthWhile(
        t
          .http()
          .post('/v1/agents/agent-1/mcp')
          .set(auth)
          .set('Accept', 'application/json, text/event-stream')
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(message)),
      );
      expect(res.status).toBe(status);
      expect({ slow: healthMs.filter((ms) => ms >= HEALTH_WITHIN_MS) }).toEqual({ slow: [] });
    }
  });

  it('answers /health within 200 ms while a typed field holds 145 objects of 1,000 keys', async () => {
    // Each object is within the per-object bound; together they cost class-transformer 250 ms.
    const channel = await givenWhatsappChannel(t, auth);
    const body = aFollowUp(channel.id, {
      client_phone_numbers: Array.from({ length: 145 }, () => manyKeys(1_000)),
    });
    // The best of three sends: the machine's own stalls (CI measured single probes of 215 and
    // 451 ms at a load of 5 to 8) come and go, while a request that holds the loop does so every
    // time.
    // Serialized once, here: the test shares the service's event loop, and supertest would
    // otherwise stringify 145,000 keys inside the first probe's time on every send.
    const payload = JSON.stringify(body);
    const worst: number[] = [];
    for (let send = 0; send < 3; send++) {
      const { res, healthMs } = await healthWhile(
        t
          .http()
          .post('/v1/scheduler/follow-up/whatsapp')
          .set(auth)
          .set('Content-Type', 'application/json')
          .send(payload),
      );
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { field: 'client_phone_numbers', message: 'must not hold more than 1000 keys in all' },
      ]);
      worst.push(Math.max(0, ...healthMs));
    }
    expect(Math.min(...worst)).toBeLessThan(HEALTH_WITHIN_MS);
  });

  it('answers /health within 200 ms while one connection sends such bodies back to back', async () => {
    const payloads = (await manyKeyBodies()).map(({ path, body }) => ({
      path,
      payload: JSON.stringify(body),
    }));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const server = t.app.getHttpServer();
    if (!server.listening) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    }
    const { port } = server.address() as AddressInfo;
    let sent = 0;
    const refused: number[] = [];
    const hostile = (async () => {
      for (const until = Date.now() + 3_000; Date.now() < until; sent++) {
        const { path, payload } = payloads[sent % payloads.length];
        refused.push(await postOn(agent, port, path, payload));
      }
    })();
    const { healthMs } = await healthWhile(hostile.then(() => ({}) as Response));
    agent.destroy();
    const sorted = [...healthMs].sort((a, b) => a - b);
    process.stdout.write(
      `[measure] ${sent} bodies of 120,000 keys on one connection in 3 s: ${healthMs.length} /health probes, median ${sorted[sorted.length >> 1]} ms, longest ${sorted[sorted.length - 1]} ms\n`,
    );
    expect(sent).toBeGreaterThan(1);
    expect(new Set(refused)).toEqual(new Set([400]));
    // Hundreds of probes: one that the machine itself delayed (another process on the CPU) is not
    // a request holding the loop, which made nearly every probe slow (issue 17: 97.9% over 1 s).
    const slow = healthMs.filter((ms) => ms >= HEALTH_WITHIN_MS);
    expect(healthMs.length).toBeGreaterThan(50);
    expect(slow.length).toBeLessThanOrEqual(Math.floor(healthMs.length / 100));
    expect(slow.filter((ms) => ms >= 1_000)).toEqual([]);
  });

  /** POSTs a JSON text through `agent` (one kept-alive connection) and answers the status. */
  const postOn = (agent: Agent, port: number, path: string, payload: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          agent,
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  it('answers /health within 200 ms while GET /v1/scheduler/preview expands its costliest schedule', async () => {
    const { res, healthMs } = await healthWhile(
      t
        .http()
        .get('/v1/scheduler/preview')
        .query({ frequency: LEAP_DAY, time_zone: 'Pacific/Chatham', count: 500 })
        .set(auth),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.occurrences).toHaveLength(500);
    expect(healthMs.filter((ms) => ms >= HEALTH_WITHIN_MS)).toEqual([]);
  });

  it('refuses a rule that never fires without stalling /health (checked in the scheduler thread)', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const { res, healthMs } = await healthWhile(
      t
        .http()
        .post('/v1/scheduler/follow-up/whatsapp')
        .set(auth)
        .send(
          aFollowUp(channel.id, {
            // 30 February, every minute: rrule walks its calendar to year 9999 looking for one.
            frequency: 'FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30;BYHOUR=3;BYMINUTE=7',
          }),
        ),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'frequency', message: expect.any(String) }]);
    expect(healthMs.filter((ms) => ms >= HEALTH_WITHIN_MS)).toEqual([]);
  });
});
