import { freePort } from './support/free-port';
import { eventually } from './support/eventually';
import { aTool, aWhatsappChannel } from './support/factories';
import { ServiceProcess } from './support/service-process';
import { TcpProxy } from './support/tcp-proxy';
import { bearer, createTestDatabase, startApp, TestApp, tokenFor } from './support/test-app';

/**
 * Database outages, simulated by a TCP proxy between the service and PostgreSQL that the test
 * cuts and restores. The embedded database cannot go away, so this suite runs only with
 * TEST_DATABASE_URL.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

const PROBLEM_JSON = /^application\/problem\+json/;

/** Log lines (pino JSON) whose message contains `text`. */
const linesWith = (logs: string, text: string) =>
  logs.split('\n').filter((line) => line.includes(`"msg":"${text}`));

describe('Readiness (e2e)', () => {
  let app: TestApp;
  beforeAll(async () => (app = await startApp()));
  afterAll(async () => app.close());

  it('answers 200 {"status":"ok"} without a token, and healthy probes are not logged', async () => {
    for (let probe = 0; probe < 3; probe++) {
      await app.http().get('/health').expect(200, { status: 'ok' });
    }
    await app.http().get('/v1/tools').expect(401);
    const accessLines = app
      .logs()
      .split('\n')
      .filter((line) => line.includes('"responseTime"'));
    // The 401 is there (so the access log works), the probes are not.
    expect(accessLines.filter((line) => line.includes('"path":"/v1/tools"'))).toHaveLength(1);
    expect(accessLines.filter((line) => line.includes('"path":"/health"'))).toEqual([]);
  });
});

onPostgres('Database outage (e2e, PostgreSQL)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let proxiedUrl: string;

  beforeEach(async () => {
    database = (await createTestDatabase())!;
    ({ proxy, url: proxiedUrl } = await TcpProxy.forDatabaseUrl(database.url));
  });
  afterEach(async () => {
    await proxy.close();
    await database.drop();
  });

  describe('a running service', () => {
    let app: TestApp;

    beforeEach(async () => {
      app = await startApp({
        DATABASE_URL: proxiedUrl,
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        // The scheduler ticks ten times a second during the outage: it must not log each.
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '100',
      });
    });
    afterEach(async () => {
      proxy.restore();
      await app.close();
    });

    it('answers 503 database_unavailable with Retry-After while the database is away, and serves again when it is back', async () => {
      const auth = bearer(tokenFor());
      await app.http().get('/health').expect(200, { status: 'ok' });
      await app.http().post('/v1/tools').set(auth).send(aTool()).expect(201);

      proxy.cut();
      for (const send of [
        () => app.http().get('/v1/tools').set(auth),
        () => app.http().post('/v1/channels/whatsapp').set(auth).send(aWhatsappChannel()),
        () => app.http().post('/v1/tools').set(auth).send(aTool()),
      ]) {
        const res = await send();
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toMatch(PROBLEM_JSON);
        expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
        expect(res.body).toMatchObject({ status: 503, code: 'database_unavailable' });
      }
      // What needs no database still works.
      await app.http().get('/v1/tools/specs?limit=1').set(auth).expect(200);
      const health = await app.http().get('/health');
      expect(health.status).toBe(503);
      expect(health.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(health.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(health.body).toMatchObject({ code: 'database_unavailable' });
      // Liveness looks at the process only; readiness says what is wrong, without a stack.
      await app.http().get('/health/live').expect(200, { status: 'ok' });
      const ready = await app.http().get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.headers['content-type']).toMatch(PROBLEM_JSON);
      expect(ready.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(ready.body).toMatchObject({ status: 503, code: 'not_ready' });
      expect(ready.body.detail).toContain('database: it does not answer');
      // Metrics still scrape: the gauges read from the database keep their last values meanwhile
      // (metrics.e2e-spec.ts follows them through an outage).
      const metrics = await app.http().get('/metrics').expect(200);
      expect(metrics.text).toContain('agentline_deliveries_total');
      // Let the scheduler tick (and fail) for a while.
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      proxy.restore();
      await eventually(() => app.http().get('/health').expect(200, { status: 'ok' }), 10_000);
      await eventually(() => app.http().get('/health/ready').expect(200), 10_000);
      const listed = await app.http().get('/v1/tools').set(auth).expect(200);
      expect(listed.body.data.total_count).toBe(1);

      // One line when it went, one when it came back; no per-request or per-tick error.
      await eventually(async () =>
        expect(linesWith(app.logs(), 'database available again')).toHaveLength(1),
      );
      const logs = app.logs();
      expect(linesWith(logs, 'database unavailable')).toHaveLength(1);
      expect(linesWith(logs, 'database available again')[0]).toMatch(/after \d+\.\d s/);
      expect(linesWith(logs, 'scheduler tick failed')).toEqual([]);
      expect(linesWith(logs, 'unhandled error')).toEqual([]);
      expect(logs).not.toContain('"stack"');
      // Readiness failed for as long as the outage lasted: one line when it did, one when it ended.
      expect(linesWith(logs, 'not ready: database')).toHaveLength(1);
      expect(linesWith(logs, 'ready again')).toHaveLength(1);
      const accessLines = logs.split('\n').filter((line) => line.includes('"responseTime"'));
      // Readiness probes are not news: neither the healthy answers nor the 503s are access-logged.
      expect(accessLines.filter((line) => line.includes('"path":"/health"'))).toEqual([]);
      // The API's 503s are, as warnings.
      const unavailable = accessLines.filter((line) => line.includes('"statusCode":503'));
      expect(unavailable).toHaveLength(3);
      for (const line of unavailable) expect(JSON.parse(line).level).toBe(40);
    });

    it('logs each outage once, however many requests meet it', async () => {
      const auth = bearer(tokenFor());
      for (let outage = 0; outage < 2; outage++) {
        proxy.cut();
        await app.http().get('/health').expect(503);
        await app.http().get('/health').expect(503);
        proxy.restore();
        await eventually(() => app.http().get('/health').expect(200), 10_000);
      }
      await eventually(async () =>
        expect(linesWith(app.logs(), 'database available again')).toHaveLength(2),
      );
      expect(linesWith(app.logs(), 'database unavailable')).toHaveLength(2);
      await app.http().get('/v1/tools').set(auth).expect(200);
    });
  });

  describe('a process that starts while the database is away', () => {
    let service: ServiceProcess | undefined;

    afterEach(async () => {
      service?.kill('SIGKILL');
      await service?.exited;
      service = undefined;
    });

    const start = (env: Record<string, string>) => {
      // A password the server does not ask for (trust), to see that no message shows it.
      const url = new URL(proxiedUrl);
      url.password = 'not-to-be-printed';
      return ServiceProcess.start({
        DATABASE_URL: url.toString(),
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        SCHEDULER_ENABLED: 'false',
        LOG_LEVEL: 'info',
        ...env,
      });
    };

    it('waits with one line per attempt and starts serving once the database is back', async () => {
      const port = await freePort();
      proxy.cut();
      service = start({ PORT: String(port), DATABASE_STARTUP_TIMEOUT_MS: '0' });
      await service.waitForOutput(
        `waiting for the database at 127.0.0.1:${proxy.port} (attempt 2)`,
      );
      proxy.restore();
      await service.waitForOutput('agentline listening', 30_000);
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status).toBe(200);

      const waiting = service.output
        .split('\n')
        .filter((line) => line.startsWith('waiting for the database'));
      expect(waiting.length).toBeGreaterThanOrEqual(2);
      waiting.forEach((line, index) =>
        expect(line).toMatch(
          new RegExp(
            `^waiting for the database at 127\\.0\\.0\\.1:\\d+ \\(attempt ${index + 1}\\): \\S`,
          ),
        ),
      );
      expect(service.output).not.toMatch(/^\s+at /m);
      expect(service.output).not.toContain('not-to-be-printed');
      expect(service.output).not.toContain('Unable to connect to the database');
    });

    it('gives up after DATABASE_STARTUP_TIMEOUT_MS with one line and no stack trace', async () => {
      proxy.cut();
      const startedAt = Date.now();
      service = start({ PORT: '0', DATABASE_STARTUP_TIMEOUT_MS: '2500' });
      const { code } = await service.exited;
      expect(code).toBe(1);
      const lines = service.output.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        /^agentline failed to start: the database at 127\.0\.0\.1:\d+ did not answer within 2\.5 s \(\d+ attempts; DATABASE_STARTUP_TIMEOUT_MS\): \S/,
      );
      expect(lines.slice(0, -1).every((line) => line.startsWith('waiting for the database'))).toBe(
        true,
      );
      expect(service.output).not.toMatch(/^\s+at /m);
      expect(service.output).not.toContain('not-to-be-printed');
      // It gave up at the limit, not at a fixed number of attempts.
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2_500);
    });
  });
});
