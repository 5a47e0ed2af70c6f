import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './support/eventually';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import { freePort } from './support/free-port';
import { givenOutgoingMessage, givenWhatsappChannel } from './support/given';
import { postToWebhook, whatsappNotification } from './support/meta-webhooks';
import { TcpProxy } from './support/tcp-proxy';
import { bearer, createTestDatabase, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'metrics-app-secret';

/** A message to send now on a new channel: a due delivery, pending until a scheduler takes it. */
const queueMessage = async (t: TestApp) => {
  const auth = bearer(tokenFor());
  await givenOutgoingMessage(t, auth, await givenWhatsappChannel(t, auth));
};

const { version: VERSION } = JSON.parse(
  readFileSync(join(__dirname, '..', 'package.json'), 'utf8'),
) as { version: string };

const READ_AT = 'agentline_database_gauges_last_success_timestamp_seconds';

/** Whether Prometheus' promtool is on the PATH. */
const promtool = spawnSync('promtool', ['--version']).status === 0;

/** Outages are simulated with a TCP proxy in front of PostgreSQL (see outage.e2e-spec.ts). */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/** The value of one series of the exposition text, or undefined when it is not there. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('Metrics (e2e)', () => {
  describe('on the API port', () => {
    let graph: FakeGraphApi;
    let t: TestApp;
    const auth = bearer(tokenFor());
    const scrape = async () => (await t.http().get('/metrics').expect(200)).text;

    beforeAll(async () => {
      graph = await FakeGraphApi.start();
      t = await startApp({
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        META_APP_SECRET: SECRET,
        METRICS_REFRESH_MS: '100',
      });
    });
    afterAll(async () => {
      await t.close();
      await graph.close();
    });

    it('counts requests by route template, method and status, with their duration', async () => {
      await t.http().get('/v1/tools').expect(401);
      const channel = await givenWhatsappChannel(t, auth);
      await t.http().get(`/v1/channels/whatsapp/${channel.id}`).set(auth).expect(200);
      const res = await t.http().get('/metrics').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = res.text;
      expect(
        sample(
          text,
          'agentline_http_request_duration_seconds_count{method="GET",route="/v1/tools",status="401"}',
        ),
      ).toBeGreaterThanOrEqual(1);
      // One series for every channel id: the template, not the path.
      expect(
        sample(
          text,
          'agentline_http_request_duration_seconds_count{method="GET",route="/v1/channels/whatsapp/:id",status="200"}',
        ),
      ).toBe(1);
      expect(text).not.toContain(channel.id);
      // Process metrics, event-loop lag included.
      expect(text).toContain('process_resident_memory_bytes');
      expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
      // What runs: agentline's version and Node's.
      expect(
        sample(
          text,
          `agentline_build_info{version="${VERSION}",node_version="${process.version}"}`,
        ),
      ).toBe(1);
    });

    it('counts deliveries by outcome and channel kind, their lag, and shows the outbox', async () => {
      const channel = await givenWhatsappChannel(t, auth);
      // Meta answers slowly: the delivery is seen in the outbox as sending while its call is out.
      graph.latencyMs = 1_000;
      await givenOutgoingMessage(t, auth, channel);
      const sending = (text: string) =>
        (sample(text, 'agentline_outbox_deliveries{status="sending",due="true"}') ?? 0) +
        (sample(text, 'agentline_outbox_deliveries{status="sending",due="false"}') ?? 0);
      await eventually(async () => expect(sending(await scrape())).toBe(1));
      graph.latencyMs = 0;
      await eventually(async () =>
        expect(
          sample(
            await scrape(),
            'agentline_deliveries_total{outcome="sent",channel_kind="whatsapp"}',
          ),
        ).toBe(1),
      );
      const text = await scrape();
      expect(sample(text, 'agentline_delivery_lag_seconds_count{channel_kind="whatsapp"}')).toBe(1);
      // The database gauges follow at their next refresh.
      await eventually(async () => {
        const refreshed = await scrape();
        expect(sample(refreshed, 'agentline_outbox_deliveries{status="pending",due="true"}')).toBe(
          0,
        );
        expect(sending(refreshed)).toBe(0);
        expect(sample(refreshed, 'agentline_agent_events{state="pending"}')).toBe(0);
        expect(sample(refreshed, 'agentline_database_up')).toBe(1);
      });
    });

    it('counts a delivery that fails for good, and warns once with its context', async () => {
      const org = `org-${randomBytes(6).toString('hex')}`;
      const as = bearer(tokenFor({ org }));
      const channel = await givenWhatsappChannel(t, as);
      graph.enqueue(graphErrorReply(400, 131026, 'Message undeliverable'));
      const delivery = await givenOutgoingMessage(t, as, channel, { to: '+34612345679' });
      await eventually(async () =>
        expect(
          sample(
            await scrape(),
            'agentline_deliveries_total{outcome="failed",channel_kind="whatsapp"}',
          ),
        ).toBe(1),
      );
      const warnings = t
        .logs()
        .split('\n')
        .filter((line) => line.includes('delivery failed for good'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 40,
        organization_id: org,
        channel_id: channel.id,
        delivery_id: delivery.id,
        code: '131026',
      });
      // Background work: not logged under the id of the request that queued it.
      expect(warnings[0].request_id).toBeUndefined();
    });

    it("counts Meta's notifications, accepted and rejected", async () => {
      const channel = await givenWhatsappChannel(t, auth);
      const payload = whatsappNotification(channel.number_id, { statuses: [] });
      await postToWebhook(t, 'whatsapp', channel.id, payload, SECRET).expect(200);
      await postToWebhook(t, 'whatsapp', channel.id, payload, 'wrong-secret').expect(401);
      const text = await scrape();
      expect(
        sample(
          text,
          'agentline_webhook_notifications_total{channel_kind="whatsapp",result="accepted"}',
        ),
      ).toBe(1);
      expect(
        sample(
          text,
          'agentline_webhook_notifications_total{channel_kind="whatsapp",result="bad_signature"}',
        ),
      ).toBe(1);
    });
    // Prometheus' own linter; CI installs it (.ci/run), elsewhere the test runs where it is found.
    (promtool || process.env.CI ? it : it.skip)(
      'passes promtool check metrics, with every kind of series filled',
      async () => {
        expect(promtool).toBe(true);
        const checked = spawnSync('promtool', ['check', 'metrics'], {
          input: await scrape(),
          encoding: 'utf8',
        });
        expect(`${checked.stdout}${checked.stderr}`).toBe('');
        expect(checked.status).toBe(0);
      },
    );

    (promtool || process.env.CI ? it : it.skip)(
      'has example alerts (docs/operations.md) that promtool accepts, on metrics it serves',
      async () => {
        expect(promtool).toBe(true);
        const operations = readFileSync(join(__dirname, '..', 'docs', 'operations.md'), 'utf8');
        const rules = /```yaml\n(groups:[\s\S]*?)```/.exec(operations)![1];
        const file = join(t.dataDir, 'alerts.yml');
        writeFileSync(file, rules);
        const checked = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        expect(checked.stderr).toBe('');
        expect(checked.status).toBe(0);
        // Every agentline_ metric an alert names is one this process serves.
        const served = await scrape();
        const named = new Set(rules.match(/agentline_[a-z_]+/g));
        expect(named.size).toBeGreaterThan(5);
        for (const name of named) {
          expect([
            name,
            served.includes(`# TYPE ${name.replace(/_(bucket|count|sum)$/, '')} `),
          ]).toEqual([name, true]);
        }
      },
    );
  });

  it('serves the database gauges of the last refresh: a scrape does not read the database', async () => {
    // No refresh but the one at start-up within this test.
    const t = await startApp({ METRICS_REFRESH_MS: '3600000' });
    try {
      const scrape = async () => (await t.http().get('/metrics').expect(200)).text;
      await eventually(async () => expect(sample(await scrape(), 'agentline_database_up')).toBe(1));
      const pending = 'agentline_outbox_deliveries{status="pending",due="true"}';
      expect(sample(await scrape(), pending)).toBe(0);
      // A due delivery (the scheduler is off here, so it stays pending)...
      await queueMessage(t);
      // ...is not seen by scrapes until the next refresh.
      for (let i = 0; i < 3; i++) expect(sample(await scrape(), pending)).toBe(0);
    } finally {
      await t.close();
    }
  });

  onPostgres('while the database is away (PostgreSQL)', () => {
    let database: { url: string; drop: () => Promise<void> };
    let proxy: TcpProxy;
    let t: TestApp;

    beforeAll(async () => {
      database = (await createTestDatabase())!;
      const proxied = await TcpProxy.forDatabaseUrl(database.url);
      proxy = proxied.proxy;
      t = await startApp({
        DATABASE_URL: proxied.url,
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        METRICS_REFRESH_MS: '100',
      });
    });
    afterAll(async () => {
      proxy.restore();
      await t.close();
      await proxy.close();
      await database.drop();
    });

    it('still answers scrapes, with the last values read and agentline_database_up 0, and reads again once it is back', async () => {
      const scrape = async () => (await t.http().get('/metrics').expect(200)).text;
      const pending = 'agentline_outbox_deliveries{status="pending",due="true"}';
      await queueMessage(t);
      await eventually(async () => {
        const text = await scrape();
        expect(sample(text, pending)).toBe(1);
        expect(sample(text, 'agentline_database_up')).toBe(1);
      });

      proxy.cut();
      await eventually(async () => expect(sample(await scrape(), 'agentline_database_up')).toBe(0));
      // The alert on the backlog still has its series: the last value read, not a gap...
      const during = await scrape();
      expect(sample(during, pending)).toBe(1);
      expect(sample(during, 'agentline_agent_events{state="pending"}')).toBe(0);
      // ...and says how old it is: the moment of the last read that succeeded, which stands still
      // while the refreshes (every 100 ms) fail.
      const readAt = sample(during, READ_AT)!;
      expect(readAt).toBeGreaterThan(0);
      expect(readAt).toBeLessThanOrEqual(Date.now() / 1000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const later = await scrape();
      expect(sample(later, 'agentline_database_up')).toBe(0);
      expect(sample(later, READ_AT)).toBe(readAt);
      expect(sample(later, pending)).toBe(1);

      proxy.restore();
      await eventually(async () => expect(sample(await scrape(), 'agentline_database_up')).toBe(1));
      expect(sample(await scrape(), READ_AT)).toBeGreaterThan(readAt);
    });
  });

  it('asks for METRICS_TOKEN when it is set', async () => {
    const token = randomBytes(24).toString('hex');
    const t = await startApp({ METRICS_TOKEN: token });
    try {
      await t.http().get('/metrics').expect(401);
      await t.http().get('/metrics').set('Authorization', 'Bearer not-the-token').expect(401);
      // A user's JWT is not the metrics token.
      await t.http().get('/metrics').set(bearer(tokenFor())).expect(401);
      await t.http().get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
    } finally {
      await t.close();
    }
  });

  it('serves them on METRICS_PORT instead, when it is set', async () => {
    const port = await freePort();
    const t = await startApp({ METRICS_PORT: String(port) });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('agentline_deliveries_total');
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
      await t.http().get('/metrics').expect(404);
    } finally {
      await t.close();
    }
  });
});
