import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ToolEntity } from '../src/tools/entities/tool.entity';
import { ToolExecutorRegistry } from '../src/tools/execution/tool-executor.registry';
import { FakeGithubApi } from './support/fake-github-api';
import { FakeGraphApi } from './support/fake-graph-api';
import { eventually } from './support/eventually';
import { givenFollowUp, givenMessangerChannel, givenWhatsappChannel } from './support/given';
import { LISBON_WEATHER, FakeOpenWeatherApi } from './support/fake-openweather-api';
import { ManualClock } from './support/manual-clock';
import { expectEveryOutputChecked } from './support/output-schemas';
import { completeOAuth2Authorization } from './support/oauth2-authorization';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';
import { toolRequests } from './support/tool-requests';

const NOW = Date.UTC(2025, 2, 14, 14, 30, 0); // Friday 2025-03-14 14:30:00 UTC
/** For an executor driven directly; the app keeps the default tool time-out (30 s). */
const TIMEOUT_MS = 1000;
const WEATHER_KEY = `ow-${randomUUID()}`;
const GITHUB_TOKEN = `gho_${randomUUID().replace(/-/g, '')}`;

describe('Tool execution (e2e)', () => {
  let t: TestApp;
  let graph: FakeGraphApi;
  let weather: FakeOpenWeatherApi;
  let github: FakeGithubApi;
  const clock = new ManualClock(NOW);
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    weather = await FakeOpenWeatherApi.start([WEATHER_KEY]);
    github = await FakeGithubApi.start([GITHUB_TOKEN]);
    t = await startApp(
      {
        GRAPH_API_URL: graph.url,
        OPENWEATHER_API_URL: weather.url,
        GITHUB_API_URL: github.url,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([graph.close(), weather.close(), github.close()]);
  });
  beforeEach(() => {
    clock.set(NOW);
    graph.reset();
    weather.reset();
    github.reset();
    org = newOrganization();
    auth = bearer(tokenFor({ org, sub: 'dana' }));
  });

  const { attach, execute, run, executions } = toolRequests(
    () => t,
    () => auth,
  );
  const runTool = async (name: string, input: Record<string, unknown>) =>
    run((await attach(name)).id, input);

  describe('POST /v1/tools/{id}/execute: the request', () => {
    it('answers the output wrapped in data, with the execution id, status and duration', async () => {
      const tool = await attach('Math.Calculate');
      const res = await execute(tool.id, { expression: '(1200 * 0.075) / 12' }).expect(200);
      expect(res.body).toEqual({
        data: {
          execution_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          status: 'succeeded',
          output: { value: 7.5 },
          duration_ms: expect.any(Number),
        },
      });
    });

    it('lets a tool that has run be removed, and its executions with it', async () => {
      const tool = await attach('Math.Calculate');
      await run(tool.id, { expression: '1 + 1' });
      await t.http().delete(`/v1/tools/${tool.id}`).set(auth).expect(204);
      await t.http().get(`/v1/tools/${tool.id}/executions`).set(auth).expect(404);
    });

    it("finds a removed tool's executions by an index on tool_id, not by reading the table", async () => {
      const tool = await attach('Math.Calculate');
      await run(tool.id, { expression: '1 + 1' });
      // What the ON DELETE CASCADE runs; on a table this small the planner would scan it anyway.
      const plan = (await t.app.get(DataSource).transaction(async (db) => {
        await db.query("SELECT set_config('enable_seqscan', 'off', true)");
        return db.query('EXPLAIN DELETE FROM tool_executions WHERE tool_id = $1', [tool.id]);
      })) as { 'QUERY PLAN': string }[];
      expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toMatch(
        /Index (Only )?Scan using tool_executions_tool_idx/,
      );
    });

    it('names every invalid input field', async () => {
      const tool = await attach('Math.Calculate');
      const res = await execute(tool.id, {
        expression: 12,
        precision: 'two',
        variables: [1],
        verbose: true,
      }).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(res.body.errors).toEqual([
        { field: 'input.verbose', message: 'unknown field verbose' },
        { field: 'input.expression', message: 'must be a string' },
        { field: 'input.variables', message: 'must be a JSON object' },
        { field: 'input.precision', message: 'must be an integer' },
      ]);
    });

    it('names missing required fields, array elements and enum values', async () => {
      const statistics = await attach('Math.Statistics');
      const res = await execute(statistics.id, { measures: ['mean', 'mode'] }).expect(400);
      expect(res.body.errors).toEqual([
        { field: 'input.values', message: 'values is required' },
        {
          field: 'input.measures[1]',
          message: 'must be one of: count, sum, mean, median, min, max, stddev, variance',
        },
      ]);
      const more = await execute(statistics.id, { values: [1, '2', null] }).expect(400);
      expect(more.body.errors).toEqual([
        { field: 'input.values[1]', message: 'must be a number' },
        { field: 'input.values[2]', message: 'must be a number' },
      ]);
    });

    it.each([
      ['no input', {}, 'input'],
      ['an input that is an array', { input: [1] }, 'input'],
      ['an input that is a string', { input: 'x' }, 'input'],
      ['an unknown body field', { input: {}, tool: 'x' }, 'tool'],
    ])('refuses %s', async (_name, body, field) => {
      const tool = await attach('Time.CurrentTime');
      const res = await t.http().post(`/v1/tools/${tool.id}/execute`).set(auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });

    it("answers 404 for another organization's tool, a missing one and a non-uuid id", async () => {
      const tool = await attach('Math.Calculate');
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      const res = await execute(tool.id, { expression: '1' }, stranger).expect(404);
      expect(res.body.code).toBe('not_found');
      await execute(randomUUID(), { expression: '1' }).expect(404);
      await execute('not-a-uuid', { expression: '1' }).expect(404);
      await t.http().get(`/v1/tools/${tool.id}/executions`).set(stranger).expect(404);
      expect((await executions(tool.id)).total_count).toBe(0);
    });

    it('answers 409 authorization_required for a secret tool attached without its key', async () => {
      const tool = await attach('Weather.GetCurrentWeather');
      expect(tool.authorization_status).toBe('not_started');
      const res = await execute(tool.id, { location: 'Lisbon,PT' }).expect(409);
      expect(res.body).toMatchObject({
        status: 409,
        code: 'authorization_required',
        authorization_status: 'not_started',
      });
      expect(res.body.detail).toContain('OPENWEATHER_API_KEY');
      expect(weather.requests).toHaveLength(0);
      expect((await executions(tool.id)).total_count).toBe(0);
    });

    it('answers 409 for an OAuth2 tool whose authorization is not completed', async () => {
      const tool = await attach('Github.CreateIssue');
      const res = await execute(tool.id, { owner: 'o', repo: 'r', title: 't' }).expect(409);
      expect(res.body.code).toBe('authorization_required');
      expect(res.body.authorization_status).toBe('not_started');
      expect(res.body.detail).toContain("provider 'github'");
      expect(github.requests).toHaveLength(0);
    });

    it('checks the input before the authorization', async () => {
      const tool = await attach('Weather.GetCurrentWeather');
      const res = await execute(tool.id, { units: 'kelvin' }).expect(400);
      expect(res.body.errors).toEqual([
        { field: 'input.units', message: 'must be one of: metric, imperial, standard' },
      ]);
    });
  });

  describe('built-in toolkits', () => {
    it.each([
      [{ expression: '2 ^ 3 ^ 2 - 12 % 5' }, 510],
      [{ expression: 'sqrt(x^2 + y^2)', variables: { x: 3, y: 4 } }, 5],
      [{ expression: '10 / 3', precision: 2 }, 3.33],
      [{ expression: '0.1 + 0.2' }, 0.3],
      [{ expression: 'round(pi, 4) + max(1, 2, 3)' }, 6.1416],
    ])('Math.Calculate %j = %p', async (input, value) => {
      expect((await runTool('Math.Calculate', input)).output).toEqual({ value });
    });

    it('Math.Calculate reports a bad expression as output.error, and records it as failed', async () => {
      const tool = await attach('Math.Calculate');
      const result = await run(tool.id, { expression: '1 / (2 - 2)' });
      expect(result).toMatchObject({
        status: 'failed',
        output: { error: 'Division by zero at position 3.' },
      });
      expect((await runTool('Math.Calculate', { expression: 'process.exit(1)' })).output).toEqual({
        error: 'Unexpected character "." at position 8.',
      });
      const [record] = (await executions(tool.id)).items;
      expect(record).toMatchObject({ status: 'failed', error: 'Division by zero at position 3.' });
    });

    it('Math.Statistics computes every measure, or those asked for in their order', async () => {
      const values = [2, 4, 4, 4, 5, 5, 7, 9];
      expect((await runTool('Math.Statistics', { values })).output).toEqual({
        value: { count: 8, sum: 40, mean: 5, median: 4.5, min: 2, max: 9, stddev: 2, variance: 4 },
      });
      expect(
        (await runTool('Math.Statistics', { values, measures: ['max', 'mean', 'max'] })).output,
      ).toEqual({ value: { max: 9, mean: 5 } });
      expect((await runTool('Math.Statistics', { values: [] })).output).toEqual({
        error: 'values must hold at least one number.',
      });
    });

    it('Time.CurrentTime tells the time in a zone, UTC by default', async () => {
      expect((await runTool('Time.CurrentTime', { time_zone: 'Asia/Kolkata' })).output).toEqual({
        value: {
          datetime: '2025-03-14T20:00:00+05:30',
          time_zone: 'Asia/Kolkata',
          utc_offset: '+05:30',
          day_of_week: 'Friday',
          unix_timestamp: NOW / 1000,
        },
      });
      expect((await runTool('Time.CurrentTime', {})).output).toMatchObject({
        value: { datetime: '2025-03-14T14:30:00+00:00', time_zone: 'UTC', utc_offset: '+00:00' },
      });
      expect((await runTool('Time.CurrentTime', { time_zone: 'Mars/Olympus' })).output).toEqual({
        error:
          'time_zone "Mars/Olympus" is not an IANA time zone such as Europe/Lisbon or America/New_York.',
      });
    });

    it('Time.ConvertTimeZone converts across zones and DST changes', async () => {
      const convert = async (datetime: string, from: string, to: string) =>
        (
          await runTool('Time.ConvertTimeZone', {
            datetime,
            from_time_zone: from,
            to_time_zone: to,
          })
        ).output;
      expect(await convert('2025-03-14T15:30:00', 'Europe/Lisbon', 'America/New_York')).toEqual({
        value: {
          datetime: '2025-03-14T11:30:00-04:00',
          time_zone: 'America/New_York',
          utc_offset: '-04:00',
        },
      });
      // 02:30 does not exist in Madrid on 2025-03-30: it moves forward by the gap, to 03:30 CEST.
      expect(await convert('2025-03-30T02:30', 'Europe/Madrid', 'UTC')).toEqual({
        value: { datetime: '2025-03-30T01:30:00+00:00', time_zone: 'UTC', utc_offset: '+00:00' },
      });
      expect(await convert('2025-02-30T10:00:00', 'UTC', 'UTC')).toEqual({
        error: 'datetime "2025-02-30T10:00:00" is not a real date and time.',
      });
    });

    it('Text.CountWords measures a text', async () => {
      const text = 'Hello, world! How are you?\nFine. 👍🏽';
      expect((await runTool('Text.CountWords', { text })).output).toEqual({
        value: { words: 6, characters: 34, sentences: 3, lines: 2 },
      });
      expect((await runTool('Text.CountWords', { text, count_whitespace: false })).output).toEqual({
        value: { words: 6, characters: 28, sentences: 3, lines: 2 },
      });
    });

    it.each([
      ['upper', 'Hello world', 'HELLO WORLD'],
      ['lower', 'Hello WORLD', 'hello world'],
      ['title', "the QUICK brown fox's tail", "The Quick Brown Fox's Tail"],
      ['sentence', 'hello THERE. how are you? fine', 'Hello there. How are you? Fine'],
      ['snake', 'Hello World, helloWorld HTTPServer', 'hello_world_hello_world_http_server'],
    ])('Text.ChangeCase to %s', async (targetCase, text, value) => {
      expect((await runTool('Text.ChangeCase', { text, case: targetCase })).output).toEqual({
        value,
      });
    });
  });

  describe('third-party toolkits', () => {
    const weatherTool = () => attach('Weather.GetCurrentWeather', { api_key: WEATHER_KEY });

    it('Weather.GetCurrentWeather sends the api_key as appid and never shows it', async () => {
      const tool = await weatherTool();
      expect(tool.authorization_status).toBe('completed');
      const res = await execute(tool.id, { location: 'Lisbon,PT', units: 'metric' }).expect(200);
      expect(res.body.data.output).toEqual({
        value: {
          location: 'Lisbon, PT',
          observed_at: new Date(LISBON_WEATHER.dt * 1000).toISOString(),
          temperature: 17.2,
          feels_like: 16.8,
          humidity: 72,
          pressure: 1016,
          wind_speed: 4.6,
          wind_direction: 320,
          clouds: 75,
          condition: 'broken clouds',
          units: 'metric',
        },
      });
      expect(weather.requests).toHaveLength(1);
      expect(weather.requests[0]).toMatchObject({
        method: 'GET',
        path: '/data/2.5/weather',
        query: { q: 'Lisbon,PT', units: 'metric', appid: WEATHER_KEY },
      });

      const list = await t.http().get(`/v1/tools/${tool.id}/executions`).set(auth).expect(200);
      expect(list.body.data.items[0]).toMatchObject({
        status: 'succeeded',
        input: { location: 'Lisbon,PT', units: 'metric' },
        output: res.body.data.output,
      });
      for (const text of [JSON.stringify(res.body), JSON.stringify(list.body), t.logs()]) {
        expect(text).not.toContain(WEATHER_KEY);
      }
    });

    it('answers a run whose tool was removed meanwhile with its output (the record went with the tool)', async () => {
      const tool = await weatherTool();
      weather.enqueue({ status: 200, body: LISBON_WEATHER, delayMs: 400 });
      // Sent now (a supertest request starts when it is awaited or then'd).
      const running = execute(tool.id, { location: 'Lisbon,PT', units: 'metric' }).then(
        (res) => res,
      );
      await eventually(async () => expect(weather.requests).toHaveLength(1));
      await t.http().delete(`/v1/tools/${tool.id}`).set(auth).expect(204);
      const res = await running;
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        status: 'succeeded',
        output: { value: { location: 'Lisbon, PT' } },
      });
      await t.http().get(`/v1/tools/${tool.id}/executions`).set(auth).expect(404);
    });

    it('Weather.GetCurrentWeather takes coordinates, and refuses neither or both', async () => {
      const tool = await weatherTool();
      expect((await run(tool.id, { latitude: 38.72, longitude: -9.13 })).status).toBe('succeeded');
      expect(weather.requests[0].query).toMatchObject({ lat: '38.72', lon: '-9.13' });
      expect((await run(tool.id, {})).output).toEqual({
        error: 'Give location, or both latitude and longitude.',
      });
      expect((await run(tool.id, { location: 'Lisbon', latitude: 1 })).output).toEqual({
        error: 'Give either location or latitude and longitude, not both.',
      });
    });

    it("Weather.GetForecast folds OpenWeather's 3-hourly forecast into days", async () => {
      const tool = await attach('Weather.GetForecast', { api_key: WEATHER_KEY });
      const result = await run(tool.id, { location: 'Lisbon,PT', days: 2 });
      expect(result.output).toEqual({
        value: {
          location: 'Lisbon, PT',
          units: 'metric',
          days: [
            {
              date: '2025-03-14',
              temp_min: 12,
              temp_max: 21,
              precipitation_probability: 0,
              condition: 'few clouds',
            },
            {
              date: '2025-03-15',
              temp_min: 9,
              temp_max: 18,
              precipitation_probability: 75,
              condition: 'light rain',
            },
          ],
        },
      });
      // The catalog publishes days' range, so the request is refused before the tool runs.
      const tooMany = await execute(tool.id, { location: 'Lisbon', days: 9 }).expect(400);
      expect(tooMany.body.errors).toEqual([{ field: 'input.days', message: 'must be at most 5' }]);
    });

    it("reports the provider's error message, and never the key", async () => {
      const tool = await weatherTool();
      const missing = await run(tool.id, { location: 'Atlantis' });
      expect(missing).toMatchObject({
        status: 'failed',
        output: { error: 'OpenWeather answered HTTP 404: city not found' },
      });
      const wrongKey = `ow-wrong-${randomUUID()}`;
      const other = await attach('Weather.GetCurrentWeather', { api_key: wrongKey });
      const rejected = await run(other.id, { location: 'Lisbon' });
      expect(rejected.output.error).toMatch(/^OpenWeather answered HTTP 401: Invalid API key/);
      expect(weather.requests[1].query.appid).toBe(wrongKey);
      const list = await executions(other.id);
      for (const text of [JSON.stringify(rejected), JSON.stringify(list), t.logs()]) {
        expect(text).not.toContain(wrongKey);
      }
    });

    it('a provider answering 500 fails the execution', async () => {
      const tool = await weatherTool();
      weather.enqueue({ status: 500, body: { cod: 500, message: 'Internal error' } });
      const result = await run(tool.id, { location: 'Lisbon' });
      expect(result).toMatchObject({
        status: 'failed',
        output: { error: 'OpenWeather answered HTTP 500: Internal error' },
      });
      const [record] = (await executions(tool.id)).items;
      expect(record).toMatchObject({
        status: 'failed',
        error: 'OpenWeather answered HTTP 500: Internal error',
      });
    });

    // A provider that does not answer in time: test/tool-timeout.alone-spec.ts (a short time-out).

    it("Github.CreateIssue runs with the agent's OAuth2 access token as bearer", async () => {
      const tool = await attach('Github.CreateIssue');
      await completeOAuth2Authorization(
        t,
        { id: tool.id, organizationId: org },
        { providerId: 'github', accessToken: GITHUB_TOKEN, scopes: ['repo'] },
      );

      const res = await execute(tool.id, { owner: 'octo', repo: 'hello', title: 'Bug' }).expect(
        200,
      );
      expect(res.body.data).toMatchObject({
        status: 'succeeded',
        output: { value: { number: 42, html_url: 'https://github.com/octo/hello/issues/42' } },
      });
      expect(github.requests[0].headers.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
      const list = await executions(tool.id);
      for (const text of [JSON.stringify(res.body), JSON.stringify(list), t.logs()]) {
        expect(text).not.toContain(GITHUB_TOKEN);
      }
    });

    /** Attaches a Github tool with a completed authorization. */
    const githubTool = async (name: string) => {
      const tool = await attach(name);
      await completeOAuth2Authorization(
        t,
        { id: tool.id, organizationId: org },
        { providerId: 'github', accessToken: GITHUB_TOKEN, scopes: ['repo'] },
      );
      return tool;
    };

    it('Github.ListPullRequests lists the open pull requests, newest update first', async () => {
      const tool = await githubTool('Github.ListPullRequests');
      const result = await run(tool.id, { owner: 'octo', repo: 'hello', per_page: 5 });
      expect(github.requests[0]).toMatchObject({
        method: 'GET',
        path: '/repos/octo/hello/pulls',
        query: { state: 'open', per_page: '5', sort: 'updated', direction: 'desc' },
      });
      expect(result.output).toEqual({
        value: {
          pull_requests: [
            {
              number: 7,
              title: 'Retry sends on 429',
              state: 'open',
              user: 'ana',
              head: 'retry-429',
              base: 'main',
              draft: false,
              html_url: 'https://github.com/octo/hello/pull/7',
              updated_at: '2025-03-14T10:02:00Z',
            },
            expect.objectContaining({ number: 8, draft: true, user: 'bob' }),
          ],
        },
      });
    });

    it('Github.SearchRepositories answers the count and each repository, null where GitHub has none', async () => {
      const tool = await githubTool('Github.SearchRepositories');
      const result = await run(tool.id, { query: 'agentline', sort: 'stars', per_page: 2 });
      expect(github.requests[0]).toMatchObject({
        method: 'GET',
        path: '/search/repositories',
        query: { q: 'agentline', sort: 'stars', per_page: '2' },
      });
      expect(result.output).toEqual({
        value: {
          total_count: 2,
          repositories: [
            {
              full_name: 'octo/agentline',
              description: 'Tools and channels for AI agents',
              html_url: 'https://github.com/octo/agentline',
              stargazers_count: 1280,
              language: 'TypeScript',
            },
            {
              full_name: 'octo/agentline-docs',
              description: null,
              html_url: 'https://github.com/octo/agentline-docs',
              stargazers_count: 3,
              language: null,
            },
          ],
        },
      });
    });

    it.each([
      ['Github.CreateIssue', { owner: '..', repo: 'user', title: 'x' }, 'input.owner'],
      ['Github.ListPullRequests', { owner: 'octo', repo: '..' }, 'input.repo'],
      ['Github.ListPullRequests', { owner: 'octo', repo: '.' }, 'input.repo'],
      ['Github.ListPullRequests', { owner: 'octo/../../user', repo: 'x' }, 'input.owner'],
    ])('%s refuses a path in %j with 400 before any call to GitHub', async (name, input, field) => {
      const tool = await attach(name);
      await completeOAuth2Authorization(
        t,
        { id: tool.id, organizationId: org },
        { providerId: 'github', accessToken: GITHUB_TOKEN, scopes: ['repo'] },
      );
      const res = await execute(tool.id, input).expect(400);
      expect(res.body.errors).toEqual([
        { field, message: expect.stringMatching(/^must match the pattern /) },
      ]);
      expect(github.requests).toHaveLength(0);
      expect((await executions(tool.id)).total_count).toBe(0);
    });

    it('answers 409 for a completed OAuth2 tool whose agent holds no live token', async () => {
      const tool = await attach('Github.SearchRepositories');
      await t.app
        .get(DataSource)
        .getRepository(ToolEntity)
        .update({ id: tool.id, organizationId: org }, { authorizationStatus: 'completed' });
      const res = await execute(tool.id, { query: 'nestjs' }).expect(409);
      expect(res.body).toMatchObject({
        code: 'authorization_required',
        authorization_status: 'completed',
      });
      expect(res.body.detail).toContain("no live access token for provider 'github'");
      expect(github.requests).toHaveLength(0);
    });

    it("the GitHub executor sends GitHub's headers, and reports a refused token", async () => {
      // The OAuth2 flow is another module's: the executor is driven with the token it would inject.
      const executor = t.app.get(ToolExecutorRegistry).find('Github.CreateIssue')!;
      const context = {
        organizationId: org,
        agentId: 'agent-1',
        toolId: randomUUID(),
        toolCreatedBy: 'dana',
        executedBy: 'dana',
        accessToken: GITHUB_TOKEN,
        signal: new AbortController().signal,
        timeoutMs: TIMEOUT_MS,
      };
      await expect(
        executor.execute(
          { owner: 'octo', repo: 'hello world', title: 'Broken link', labels: ['bug'] },
          context,
        ),
      ).resolves.toEqual({
        number: 42,
        html_url: 'https://github.com/octo/hello%20world/issues/42',
        title: 'Broken link',
        state: 'open',
        created_at: '2025-03-14T14:30:00Z',
      });
      expect(github.requests[0]).toMatchObject({
        method: 'POST',
        path: '/repos/octo/hello%20world/issues',
        body: { title: 'Broken link', labels: ['bug'] },
      });
      expect(github.requests[0].headers).toMatchObject({
        authorization: `Bearer ${GITHUB_TOKEN}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
      });
      await expect(
        executor.execute(
          { owner: 'octo', repo: 'r', title: 'x' },
          { ...context, accessToken: 'gho_revoked' },
        ),
      ).rejects.toThrow('GitHub answered HTTP 401: Bad credentials');
      // Behind the schema's patterns, the URL builder refuses a segment that moves up the path.
      github.reset();
      await expect(
        executor.execute({ owner: '..', repo: 'user', title: 'x' }, context),
      ).rejects.toThrow('".." cannot be a path segment');
      expect(github.requests).toHaveLength(0);
    });
  });

  describe('GET /v1/tools/{id}/executions', () => {
    it('lists the runs of one tool, newest first, paginated', async () => {
      const tool = await attach('Math.Calculate');
      const other = await attach('Math.Calculate');
      for (const expression of ['1 + 1', '2 + 2', '3 + 3']) {
        clock.advance(1000);
        await run(tool.id, { expression });
      }
      await run(other.id, { expression: '4 + 4' });

      const all = await executions(tool.id);
      expect(all.total_count).toBe(3);
      expect(all.items.map((item) => item.input.expression)).toEqual(['3 + 3', '2 + 2', '1 + 1']);
      expect(all.items[0]).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tool_id: tool.id,
        agent_id: 'agent-1',
        qualified_name: 'Math.Calculate',
        input: { expression: '3 + 3' },
        output: { value: 6 },
        status: 'succeeded',
        error: null,
        truncated: false,
        duration_ms: expect.any(Number),
        mcp_request_id: null,
        organization_id: org,
        created_by: 'dana',
        created_at: NOW + 3000,
      });
      const page = await executions(tool.id, '?offset=1&limit=1');
      expect(page).toMatchObject({ offset: 1, total_count: 3 });
      expect(page.items.map((item) => item.input.expression)).toEqual(['2 + 2']);
      expect((await executions(other.id)).total_count).toBe(1);
    });

    it.each(['limit=0', 'limit=201', 'offset=-1', 'status=failed'])(
      'answers 400 for %s',
      async (query) => {
        const tool = await attach('Math.Calculate');
        const res = await t.http().get(`/v1/tools/${tool.id}/executions?${query}`).set(auth);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      },
    );
  });

  describe('the Agentline toolkit', () => {
    const channel = (agentId = 'agent-1') => givenWhatsappChannel(t, auth, { agent_id: agentId });

    it("SendWhatsappMessage queues the message in the agent's channel's outbox and returns its delivery", async () => {
      const token = `EAAG-wa-${randomUUID()}`;
      const own = await givenWhatsappChannel(t, auth, { access_token: token });
      const result = await runTool('Agentline.SendWhatsappMessage', {
        channel_id: own.id,
        to: '+34 612 345 678',
        text: 'Your order has shipped.',
      });
      expect(result).toMatchObject({
        status: 'succeeded',
        output: {
          value: {
            id: expect.stringMatching(/^[0-9a-f-]{36}$/),
            follow_up_id: null,
            channel_id: own.id,
            phone: '+34612345678',
            status: 'pending',
            message_type: 'text',
          },
        },
      });
      // The same delivery the API lists; this app's scheduler is off, so it waits there.
      const listed = (
        await t.http().get(`/v1/channels/whatsapp/${own.id}/deliveries`).set(auth).expect(200)
      ).body.data.items;
      expect(listed.map((d: { id: string }) => d.id)).toEqual([
        (result.output.value as { id: string }).id,
      ]);
      expect(graph.requests).toBe(0);
      expect(
        JSON.stringify(await executions((await attach('Agentline.SendWhatsappMessage')).id)),
      ).not.toContain(token);
    });

    it("SendWhatsappMessage refuses another agent's channel, another organization's and a bad number", async () => {
      const theirs = await channel('agent-2');
      const refused = await runTool('Agentline.SendWhatsappMessage', {
        channel_id: theirs.id,
        to: '+34612345678',
        text: 'Hi',
      });
      expect(refused).toMatchObject({
        status: 'failed',
        output: { error: `Channel ${theirs.id} belongs to another agent, not agent-1.` },
      });
      const own = await channel();
      const badNumber = await runTool('Agentline.SendWhatsappMessage', {
        channel_id: own.id,
        to: '12',
        text: 'Hi',
      });
      expect(badNumber.output.error).toMatch(/to: "12" is not an E.164 phone number/);
      const elsewhere = await channel();
      auth = bearer(tokenFor({ org: newOrganization(), sub: 'dana' }));
      const foreign = await runTool('Agentline.SendWhatsappMessage', {
        channel_id: elsewhere.id,
        to: '+34612345678',
        text: 'Hi',
      });
      expect(foreign.output).toEqual({ error: 'WhatsApp channel was not found.' });
      expect(graph.requests).toBe(0);
    });

    it('SendMessangerMessage answers only inside Messenger’s 24-hour window', async () => {
      const page = await givenMessangerChannel(t, auth);
      const result = await runTool('Agentline.SendMessangerMessage', {
        channel_id: page.id,
        to: '6543210987',
        text: 'Hello!',
      });
      expect(result).toMatchObject({
        status: 'failed',
        output: {
          error: expect.stringContaining('has not written to this page in the last 24 hours'),
        },
      });
      // Outside the window, a message tag Meta allows there.
      const tagged = await runTool('Agentline.SendMessangerMessage', {
        channel_id: page.id,
        to: '6543210987',
        text: 'Your order has shipped.',
        tag: 'POST_PURCHASE_UPDATE',
      });
      expect(tagged).toMatchObject({
        status: 'succeeded',
        output: { value: { channel_id: page.id, phone: '6543210987', status: 'pending' } },
      });
    });

    it("ScheduleFollowUp, ListFollowUps and CancelFollowUp manage the agent's own follow-ups", async () => {
      const own = await channel();
      const schedule = await attach('Agentline.ScheduleFollowUp');
      const created = await run(schedule.id, {
        channel_id: own.id,
        client_phone_numbers: ['+34612345678', '14155552671'],
        frequency: '0 9 * * 1-5',
        prompt: 'Ask {{title}} how the first week went.',
        title: 'Onboarding check-in',
        time_zone: 'Europe/Madrid',
      });
      expect(created.status).toBe('succeeded');
      const followUp = created.output.value as Record<string, unknown>;
      expect(followUp).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        agent_id: 'agent-1',
        channel_id: own.id,
        client_phone_numbers: ['+34612345678', '+14155552671'],
        status: 'active',
        // Monday 2025-03-17 09:00 in Madrid (CET).
        next_run_at: Date.UTC(2025, 2, 17, 8, 0, 0),
        organization_id: org,
        created_by: 'dana',
      });
      // It is a real follow-up: the HTTP API sees it.
      await t.http().get(`/v1/scheduler/follow-up/whatsapp/${followUp.id}`).set(auth).expect(200);

      // Another agent's follow-up, in the same organization, is invisible to this agent's tools.
      const theirChannel = await channel('agent-2');
      const theirs = await givenFollowUp(t, auth, theirChannel.id, { agent_id: 'agent-2' });

      const listed = await runTool('Agentline.ListFollowUps', {});
      expect(listed.output.value).toMatchObject({ offset: 0, total_count: 1 });
      expect((listed.output.value as { items: { id: string }[] }).items.map((i) => i.id)).toEqual([
        followUp.id,
      ]);

      const cancel = await attach('Agentline.CancelFollowUp');
      expect((await run(cancel.id, { follow_up_id: theirs.id })).output).toEqual({
        error: 'Follow-up was not found.',
      });
      expect(await run(cancel.id, { follow_up_id: followUp.id })).toMatchObject({
        status: 'succeeded',
        output: {
          value: { follow_up_id: followUp.id, title: 'Onboarding check-in', cancelled: true },
        },
      });
      await t.http().get(`/v1/scheduler/follow-up/whatsapp/${followUp.id}`).set(auth).expect(404);
      await t.http().get(`/v1/scheduler/follow-up/whatsapp/${theirs.id}`).set(auth).expect(200);
      expect((await runTool('Agentline.ListFollowUps', {})).output.value).toMatchObject({
        items: [],
        total_count: 0,
      });
    });

    it('ScheduleFollowUp reports invalid fields and unusable channels as output.error', async () => {
      const own = await channel();
      const schedule = await attach('Agentline.ScheduleFollowUp');
      const base = {
        channel_id: own.id,
        client_phone_numbers: ['+34612345678'],
        frequency: 'daily',
        prompt: 'Hi',
        title: 'Check-in',
      };
      const invalid = await run(schedule.id, {
        ...base,
        client_phone_numbers: ['12'],
        frequency: 'every so often',
      });
      expect(invalid.status).toBe('failed');
      expect(invalid.output.error).toContain(
        'client_phone_numbers[0]: "12" is not an E.164 phone number',
      );
      expect(invalid.output.error).toContain('frequency');
      // The published schema bounds title, so a longer one is refused before the tool runs.
      const tooLong = await execute(schedule.id, { ...base, title: 'x'.repeat(201) }).expect(400);
      expect(tooLong.body.errors).toEqual([
        { field: 'input.title', message: 'must be at most 200 characters long' },
      ]);
      const theirs = await channel('agent-2');
      expect((await run(schedule.id, { ...base, channel_id: theirs.id })).output).toEqual({
        error: `Channel ${theirs.id} belongs to another agent, not agent-1.`,
      });
    });

    it("ScheduleFollowUp takes a template's parameters, header and buttons from flat, strict-mode parameters", async () => {
      const { formatted_schema: spec } = (
        await t.http().get('/v1/tools/specs?toolkit=Agentline&format=openai').set(auth).expect(200)
      ).body.data.items.find((item: { name: string }) => item.name === 'ScheduleFollowUp');
      expect(spec.function.strict).toBe(true);
      expect(spec.function.parameters.properties.template_buttons.type).toEqual(['array', 'null']);

      const own = await channel();
      const schedule = await attach('Agentline.ScheduleFollowUp');
      const base = {
        channel_id: own.id,
        client_phone_numbers: ['+34612345678'],
        frequency: 'weekly',
        prompt: 'Tell {{title}} about the sale.',
        title: 'Ana',
      };
      const created = await run(schedule.id, {
        ...base,
        template_name: 'spring_sale',
        template_language: 'en_US',
        template_parameters: null,
        template_named_parameters: ['first_name={{title}}', 'offer=20% off = a deal'],
        template_header_type: 'image',
        template_header_link: 'https://shop.example.com/spring.jpg',
        template_buttons: ['0:url:spring?to={{phone}}'],
      });
      expect(created.status).toBe('succeeded');
      expect((created.output.value as { template: unknown }).template).toEqual({
        name: 'spring_sale',
        language: 'en_US',
        parameters: [],
        named_parameters: { first_name: '{{title}}', offer: '20% off = a deal' },
        header: { type: 'image', link: 'https://shop.example.com/spring.jpg' },
        buttons: [{ index: 0, sub_type: 'url', parameter: 'spring?to={{phone}}' }],
      });

      for (const [input, error] of [
        [
          { template_buttons: ['url:spring'] },
          'template_buttons item "url:spring" must be index:sub_type:parameter',
        ],
        [
          { template_named_parameters: ['first_name'] },
          'template_named_parameters item "first_name" must be name=value',
        ],
        [
          { template_header_link: 'https://a.example/x.jpg' },
          'template_header_link go with template_header_type',
        ],
        [{ template_buttons: ['0:call:x'] }, 'sub_type'],
      ] as const) {
        const failed = await run(schedule.id, {
          ...base,
          template_name: 'spring_sale',
          template_language: 'en_US',
          ...input,
        });
        expect(failed.status).toBe('failed');
        expect(failed.output.error).toContain(error);
      }
      const nameless = await run(schedule.id, { ...base, template_parameters: ['x'] });
      expect(nameless.output.error).toContain('need template_name and template_language');

      // With the channel's catalog, the template is checked as over HTTP.
      await t.app.get(DataSource).query(
        `UPDATE whatsapp_channels SET business_account_id = '102290129340398', templates_synced_at = now()
          WHERE id = $1`,
        [own.id],
      );
      const unknown = await run(schedule.id, {
        ...base,
        template_name: 'spring_sale',
        template_language: 'en_US',
      });
      expect(unknown.output.error).toContain(
        `template "spring_sale" does not exist in the channel's WhatsApp Business Account`,
      );
    });

    it('PreviewSchedule lists the next occurrences, in ms and local time', async () => {
      const result = await runTool('Agentline.PreviewSchedule', {
        frequency: 'daily',
        time_zone: 'Europe/Madrid',
        count: 3,
        from: Date.UTC(2025, 2, 28, 9, 0, 0), // 10:00 in Madrid, two days before DST starts
      });
      expect(result.output).toEqual({
        value: {
          occurrences: [
            Date.UTC(2025, 2, 29, 9, 0, 0),
            Date.UTC(2025, 2, 30, 8, 0, 0),
            Date.UTC(2025, 2, 31, 8, 0, 0),
          ],
          local_times: [
            '2025-03-29T10:00:00+01:00',
            '2025-03-30T10:00:00+02:00',
            '2025-03-31T10:00:00+02:00',
          ],
        },
      });
      const preview = await attach('Agentline.PreviewSchedule');
      const tooMany = await execute(preview.id, { frequency: 'daily', count: 501 }).expect(400);
      expect(tooMany.body.errors).toEqual([
        { field: 'input.count', message: 'must be at most 500' },
      ]);
    });
  });

  // Declared last: it reads what the tests above ran (every execution goes through toolRequests).
  it("checked a succeeded output of each of this suite's tools against its MCP outputSchema", () =>
    expectEveryOutputChecked(t, auth, 'tool-execution'));
});
