import { randomUUID } from 'node:crypto';
import { FakeOpenWeatherApi } from './support/fake-openweather-api';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';
import { toolRequests } from './support/tool-requests';

const TIMEOUT_MS = 1000;
const WEATHER_KEY = `ow-${randomUUID()}`;

/**
 * The tool time-out, on an app whose time-out is short: every call it makes must finish within a
 * second, which a loaded machine can break, so it runs alone (tool-execution.e2e-spec.ts keeps
 * the default time-out).
 */
describe('Tool execution time-out (e2e, alone)', () => {
  let t: TestApp;
  let weather: FakeOpenWeatherApi;
  const auth = bearer(tokenFor({ sub: 'dana' }));
  const { attach, run, executions } = toolRequests(
    () => t,
    () => auth,
  );

  beforeAll(async () => {
    weather = await FakeOpenWeatherApi.start([WEATHER_KEY]);
    t = await startApp({
      OPENWEATHER_API_URL: weather.url,
      TOOL_EXECUTION_TIMEOUT_MS: String(TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await t.close();
    await weather.close();
  });

  it('a provider that does not answer in time is timed_out, and the call is abandoned', async () => {
    const tool = await attach('Weather.GetCurrentWeather', { api_key: WEATHER_KEY });
    weather.enqueue('hang');
    const started = Date.now();
    const result = await run(tool.id, { location: 'Lisbon' });
    expect(result).toMatchObject({
      status: 'timed_out',
      output: { error: `Timed out after ${TIMEOUT_MS} ms` },
    });
    expect(result.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 3000);
    const [record] = (await executions(tool.id)).items;
    expect(record).toMatchObject({
      status: 'timed_out',
      error: `Timed out after ${TIMEOUT_MS} ms`,
      output: { error: `Timed out after ${TIMEOUT_MS} ms` },
    });
    // The next call is not stuck behind the abandoned one.
    expect((await run(tool.id, { location: 'Lisbon' })).status).toBe('succeeded');
  });
});
