import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { aFollowUp } from './support/factories';
import { FakeGraphApi, FakeReply, graphError, graphErrorReply } from './support/fake-graph-api';
import { givenFollowUp, givenOutgoingMessage, givenWhatsappChannel } from './support/given';
import { FakeLlm, openAiError } from './support/fake-llm';
import { ManualClock } from './support/manual-clock';
import { bearer, Env, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';
import { DeliveryOutbox } from '../src/scheduler/delivery/delivery-outbox';

const HOUR = 3_600_000;
/** A transient failure that takes a while: its call is in flight meanwhile. */
const slowUnavailable = {
  status: 503,
  body: graphError(2, 'Service temporarily unavailable'),
  delayMs: 500,
} satisfies FakeReply;

interface Delivery {
  phone: string;
  status: string;
  attempts: number;
  occurrence_at: number;
  last_error: { code: string; message: string } | null;
  wa_message_id: string | null;
  sent_at: number | null;
  attempt_history: {
    attempt: number;
    outcome: string;
    started_at: number;
    finished_at: number | null;
    wa_message_id: string | null;
    error: { code: string; message: string } | null;
    process_id: string;
  }[];
}

describe('Follow-up delivery (e2e)', () => {
  let graph: FakeGraphApi;
  let clock: ManualClock;
  let t: TestApp;
  let auth: Record<string, string>;

  const boot = async (env: Env = {}) => {
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        GRAPH_API_TIMEOUT_MS: '1500',
        ...env,
      },
      { clock },
    );
  };

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
  });
  afterAll(async () => graph.close());
  beforeEach(() => {
    graph.reset();
    auth = bearer(tokenFor({ org: newOrganization(), sub: 'dora' }));
  });
  afterEach(async () => t?.close());

  /** POST .../pause or .../resume of a follow-up. */
  const followUpAction = (id: string, action: 'pause' | 'resume') =>
    t.http().post(`/v1/scheduler/follow-up/whatsapp/${id}/${action}`).set(auth);
  const deliveries = async (id: string, query = ''): Promise<Delivery[]> =>
    (
      await t
        .http()
        .get(`/v1/scheduler/follow-up/whatsapp/${id}/deliveries${query}`)
        .set(auth)
        .expect(200)
    ).body.data.items;
  const getFollowUp = async (id: string) =>
    (await t.http().get(`/v1/scheduler/follow-up/whatsapp/${id}`).set(auth).expect(200)).body;

  describe('with the default configuration', () => {
    beforeEach(async () => boot());

    it('sends a once follow-up to every number through the channel, once, and records it', async () => {
      const wa = await givenWhatsappChannel(t, auth, {
        number_id: '106540352242922',
        access_token: 'EAAG-token-1',
      });
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678', '+14155552671'],
        title: 'Order 42',
        prompt: 'Hello! How was {{title}}?',
      });
      const received = await graph.waitForMessages(2);
      expect(received.map((m) => [m.numberId, m.to, m.body, m.accessToken]).sort()).toEqual([
        ['106540352242922', '14155552671', 'Hello! How was Order 42?', 'EAAG-token-1'],
        ['106540352242922', '34612345678', 'Hello! How was Order 42?', 'EAAG-token-1'],
      ]);
      const rows = await eventually(async () => {
        const items = await deliveries(created.id);
        expect(items.map((d) => d.status)).toEqual(['sent', 'sent']);
        return items;
      });
      expect(rows.map((d) => d.phone)).toEqual(['+14155552671', '+34612345678']);
      for (const row of rows) {
        expect(row).toMatchObject({
          attempts: 1,
          last_error: null,
          occurrence_at: created.next_run_at,
          sent_at: clock.now(),
        });
        expect(received.map((m) => m.wamid)).toContain(row.wa_message_id);
      }
      expect(await getFollowUp(created.id)).toMatchObject({
        status: 'completed',
        next_run_at: null,
        // What became of its messages, beside a status that says only that the schedule ended.
        deliveries: {
          latest_occurrence_at: created.next_run_at,
          latest: { sent: 2, failed: 0, pending: 0 },
          total: { sent: 2, failed: 0, pending: 0 },
        },
      });
      // Nothing more is sent, however long we wait.
      clock.advance(48 * HOUR);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.messages).toHaveLength(2);
    });

    it('sends a cron follow-up when it is due, then moves to the next occurrence', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: '30 9 * * *',
        time_zone: 'Europe/Madrid',
        client_phone_numbers: ['+34612345678'],
      });
      const first = Date.UTC(2026, 10, 2, 8, 30); // 09:30 CET
      expect(created.next_run_at).toBe(first);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.messages).toHaveLength(0);

      clock.set(first);
      await graph.waitForMessages(1);
      const advanced = await eventually(async () => {
        const current = await getFollowUp(created.id);
        expect(current.next_run_at).toBe(first + 24 * HOUR);
        return current;
      });
      expect(advanced).toMatchObject({ status: 'active', last_run_at: first });
      const [row] = await eventually(async () => {
        const items = await deliveries(created.id);
        expect(items[0]?.status).toBe('sent');
        return items;
      });
      expect(row.occurrence_at).toBe(first);
    });

    it('coalesces occurrences missed while nothing ran into one send', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'hourly',
        client_phone_numbers: ['+34612345678'],
      });
      await followUpAction(created.id, 'pause').expect(200);
      clock.advance(5 * HOUR + 10 * 60_000);
      await followUpAction(created.id, 'resume').expect(200);
      await graph.waitForMessages(1);
      const current = await eventually(async () => {
        const value = await getFollowUp(created.id);
        expect(value.next_run_at).toBe(created.next_run_at + 5 * HOUR);
        return value;
      });
      expect(current.next_run_at).toBeGreaterThan(clock.now());
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.messages).toHaveLength(1);
      expect((await deliveries(created.id)).map((d) => d.occurrence_at)).toEqual([
        created.next_run_at,
      ]);
    });

    it.each([
      ['HTTP 500', graphErrorReply(500, 1, 'An unknown error occurred'), '1'],
      ['HTTP 429', { status: 429, body: {}, headers: { 'Retry-After': '1' } }, 'http_429'],
      ['Graph code 130429 (throughput)', graphErrorReply(400, 130429, 'Rate limit hit'), '130429'],
      ['a timeout', 'hang' as const, 'timeout'],
      ['a dropped connection', 'destroy' as const, 'network_error'],
      ['garbage on a 502', { status: 502, rawBody: '<html>Bad gateway</html>' }, 'http_502'],
    ])('retries after %s, then records the send', async (_name, failure, code) => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
      });
      graph.enqueue(failure as never);
      const [failed] = await eventually(async () => {
        const items = await deliveries(created.id);
        expect(items[0]).toMatchObject({ status: 'pending', attempts: 1 });
        return items;
      });
      expect(failed.last_error?.code).toBe(code);
      expect(graph.messages).toHaveLength(0);
      const failedAt = clock.now();
      clock.advance(10 * 60_000);
      const [message] = await graph.waitForMessages(1);
      const row = await eventually(async () => {
        const [current] = await deliveries(created.id);
        expect(current).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
        return current;
      });
      // Both attempts are listed, most recent first, each with its process.
      expect(row.attempt_history).toEqual([
        {
          attempt: 2,
          outcome: 'sent',
          started_at: clock.now(),
          finished_at: clock.now(),
          wa_message_id: message.wamid,
          error: null,
          process_id: expect.any(String),
        },
        {
          attempt: 1,
          outcome: 'failed',
          started_at: failedAt,
          finished_at: failedAt,
          wa_message_id: null,
          error: { code, message: expect.any(String) },
          process_id: row.attempt_history[0].process_id,
        },
      ]);
    });

    it('fails a delivery that Meta refuses for good, keeping the code and message', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
      });
      graph.enqueue(graphErrorReply(400, 131026, 'Message undeliverable'));
      await eventually(async () => {
        const [row] = await deliveries(created.id);
        expect(row).toMatchObject({
          status: 'failed',
          attempts: 1,
          last_error: { code: '131026', message: 'Message undeliverable' },
          wa_message_id: null,
        });
      });
      clock.advance(HOUR);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(graph.requests).toBe(1);
    });

    it('manages follow-ups: get, list, pause, resume, delete', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const a = await givenFollowUp(t, auth, wa.id, { frequency: 'daily' });
      const b = await givenFollowUp(t, auth, wa.id, { frequency: 'weekly', agent_id: 'agent-1' });
      const list = (await t.http().get('/v1/scheduler/follow-ups').set(auth).expect(200)).body.data;
      expect(list).toEqual({
        items: [expect.objectContaining({ id: b.id }), expect.objectContaining({ id: a.id })],
        offset: 0,
        total_count: 2,
      });
      const filtered = (
        await t
          .http()
          .get(`/v1/scheduler/follow-ups?channel_id=${wa.id}&limit=1&offset=1`)
          .set(auth)
          .expect(200)
      ).body.data;
      expect(filtered).toMatchObject({ offset: 1, total_count: 2, items: [{ id: a.id }] });
      expect(
        (await t.http().get('/v1/scheduler/follow-ups?agent_id=nobody').set(auth).expect(200)).body
          .data.total_count,
      ).toBe(0);

      const paused = await followUpAction(a.id, 'pause').expect(200);
      expect(paused.body).toMatchObject({ id: a.id, status: 'paused' });
      const resumed = await followUpAction(a.id, 'resume').expect(200);
      expect(resumed.body).toMatchObject({
        id: a.id,
        status: 'active',
        next_run_at: a.next_run_at,
      });

      await t.http().delete(`/v1/scheduler/follow-up/whatsapp/${a.id}`).set(auth).expect(204);
      await t.http().get(`/v1/scheduler/follow-up/whatsapp/${a.id}`).set(auth).expect(404);
      await t.http().delete(`/v1/scheduler/follow-up/whatsapp/${a.id}`).set(auth).expect(404);
      expect(
        (await t.http().get('/v1/scheduler/follow-ups').set(auth).expect(200)).body.data
          .total_count,
      ).toBe(1);
    });

    it('refuses to pause or resume a completed follow-up', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, { frequency: 'once' });
      await eventually(async () =>
        expect((await getFollowUp(created.id)).status).toBe('completed'),
      );
      await followUpAction(created.id, 'pause').expect(409);
      await followUpAction(created.id, 'resume').expect(409);
    });

    it('cancels pending deliveries when a follow-up is deleted', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.respondWith(() => graphErrorReply(503, 2, 'Service temporarily unavailable'));
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
      });
      // Pending after a failed attempt: its retry waits for the (manual) clock, so nothing is in
      // flight when the follow-up is deleted.
      await eventually(async () =>
        expect((await deliveries(created.id))[0]).toMatchObject({ status: 'pending', attempts: 1 }),
      );
      await t.http().delete(`/v1/scheduler/follow-up/whatsapp/${created.id}`).set(auth).expect(204);
      graph.respondWith(undefined);
      clock.advance(HOUR);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.messages).toHaveLength(0);
      // The rows stay for the record, cancelled; the API no longer shows the follow-up.
      const rows: { status: string }[] = await t.app
        .get(DataSource)
        .query('SELECT status FROM deliveries WHERE follow_up_id = $1 ORDER BY phone', [
          created.id,
        ]);
      expect(rows.map((row) => row.status)).toEqual(['cancelled']);
    });

    it("answers 404 for another organization's follow-up on every operation", async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id);
      const intruder = bearer(tokenFor({ org: newOrganization() }));
      const base = `/v1/scheduler/follow-up/whatsapp/${created.id}`;
      await t.http().get(base).set(intruder).expect(404);
      await t.http().get(`${base}/deliveries`).set(intruder).expect(404);
      await t.http().post(`${base}/pause`).set(intruder).expect(404);
      await t.http().post(`${base}/resume`).set(intruder).expect(404);
      await t.http().delete(base).set(intruder).expect(404);
      expect(
        (await t.http().get('/v1/scheduler/follow-ups').set(intruder).expect(200)).body.data
          .total_count,
      ).toBe(0);
      await t.http().get(`/v1/scheduler/follow-up/whatsapp/${randomUUID()}`).set(auth).expect(404);
      await t.http().get('/v1/scheduler/follow-up/whatsapp/not-a-uuid').set(auth).expect(404);
      expect((await getFollowUp(created.id)).status).toBe('active');
    });
  });

  describe('with answers slow enough to delete or pause during a call', () => {
    // Answers take up to 2.5 s here: the time-out leaves room for a loaded machine, where a call
    // that timed out would be retried and no longer be the race these tests set up.
    beforeEach(async () => boot({ GRAPH_API_TIMEOUT_MS: '8000' }));

    it('records the calls in flight when a follow-up is deleted, and retries none of them', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const rowsOf = (followUpId: string) =>
        t.app
          .get(DataSource)
          .query(
            'SELECT phone, status, attempts, last_error_code, wa_message_id FROM deliveries WHERE follow_up_id = $1 ORDER BY phone',
            [followUpId],
          );
      // Slow answers: one number's call succeeds, the other's fails transiently.
      graph.respondWith((request) => (request.to === '14155552671' ? slowUnavailable : undefined));
      graph.latencyMs = slowUnavailable.delayMs;
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678', '+14155552671'],
      });
      await eventually(async () => expect(graph.requests).toBe(2));
      await t.http().delete(`/v1/scheduler/follow-up/whatsapp/${created.id}`).set(auth).expect(204);
      await eventually(async () =>
        expect(await rowsOf(created.id)).toEqual([
          {
            phone: '+14155552671',
            status: 'cancelled',
            attempts: 1,
            last_error_code: '2',
            wa_message_id: null,
          },
          {
            phone: '+34612345678',
            status: 'sent',
            attempts: 1,
            last_error_code: null,
            wa_message_id: graph.messages[0].wamid,
          },
        ]),
      );
      graph.respondWith(undefined);
      clock.advance(HOUR);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.requests).toBe(2);
      // Even a pending row of a deleted follow-up (a retry written as the DELETE committed) is
      // never claimed.
      await t.app
        .get(DataSource)
        .query(
          "UPDATE deliveries SET status = 'pending', next_attempt_at = now() - interval '1 day' WHERE follow_up_id = $1 AND status = 'cancelled'",
          [created.id],
        );
      clock.advance(HOUR);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.requests).toBe(2);
    });

    it('never writes the late outcome of a taken-over claim over its re-claim by the same process', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      // +14155552671 fails quickly: the sender it frees claims again while +34612345678's first
      // call is still in flight.
      graph.respondWith((request) =>
        request.to === '14155552671' ? { ...slowUnavailable, delayMs: 400 } : undefined,
      );
      graph.latencyMs = 1_500;
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678', '+14155552671'],
      });
      await eventually(async () => expect(graph.requests).toBe(2));
      // Taken over as the reaper does (this process looked dead) while its first call is in flight;
      // the same process claims the row again, and that second call ends last.
      graph.latencyMs = 2_500;
      await t.app.get(DataSource).query(
        `WITH taken AS (
           UPDATE deliveries SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL
            WHERE follow_up_id = $1 AND phone = '+34612345678' RETURNING id)
         UPDATE delivery_attempts SET outcome = 'unknown' WHERE delivery_id IN (SELECT id FROM taken)`,
        [created.id],
      );
      await eventually(async () => expect(graph.messages).toHaveLength(2));
      const spain = async () =>
        (await deliveries(created.id)).find((delivery) => delivery.phone === '+34612345678');
      // Both calls have answered once both attempts are recorded as sent (each outcome is written
      // with its row in one statement): nothing can write over the row after this.
      const delivery = await eventually(async () => {
        const current = await spain();
        expect(current?.attempt_history.filter(({ outcome }) => outcome === 'sent')).toHaveLength(
          2,
        );
        return current;
      });
      // The row keeps the outcome of its current claim; the first call's outcome completes its own
      // attempt.
      expect(delivery).toMatchObject({ attempts: 2, wa_message_id: graph.messages[1].wamid });
      expect(
        delivery?.attempt_history
          .map(({ attempt, outcome, wa_message_id }) => ({ attempt, outcome, wa_message_id }))
          .sort((a, b) => a.attempt - b.attempt),
      ).toEqual([
        { attempt: 1, outcome: 'sent', wa_message_id: graph.messages[0].wamid },
        { attempt: 2, outcome: 'sent', wa_message_id: graph.messages[1].wamid },
      ]);
    });

    it('holds the retry of a call that failed while its follow-up was paused until it is resumed', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'hourly',
        client_phone_numbers: ['+34612345678'],
      });
      graph.enqueue(slowUnavailable);
      clock.set(created.next_run_at);
      await eventually(async () => expect(graph.requests).toBe(1));
      // Paused while its call is in flight: the failure is recorded, its retry waits.
      await followUpAction(created.id, 'pause').expect(200);
      await eventually(async () =>
        expect((await deliveries(created.id))[0]).toMatchObject({ status: 'pending', attempts: 1 }),
      );
      clock.advance(10 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.requests).toBe(1);
      await followUpAction(created.id, 'resume').expect(200);
      await eventually(async () =>
        expect((await deliveries(created.id))[0]).toMatchObject({ status: 'sent', attempts: 2 }),
      );
    });
  });

  describe('with one sender', () => {
    beforeEach(async () => boot({ DELIVERY_CONCURRENCY: '1' }));

    it('marks the channel inactive when Meta rejects its token, failing its pending deliveries', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.respondWith(() =>
        graphErrorReply(401, 190, 'Error validating access token: Session has expired'),
      );
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678', '+14155552671', '+4915112345678'],
      });
      const rows = await eventually(async () => {
        const items = await deliveries(created.id);
        expect(items.map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
        return items;
      });
      // The first send meets the 401; the channel's other pending deliveries fail without a call.
      expect(rows.map((d) => d.last_error?.code).sort()).toEqual([
        '190',
        'channel_inactive',
        'channel_inactive',
      ]);
      expect(graph.requests).toBe(1);
      // A new follow-up on the inactive channel is refused; a new token reactivates it.
      await t
        .http()
        .post('/v1/scheduler/follow-up/whatsapp')
        .set(auth)
        .send(aFollowUp(wa.id))
        .expect(422);
      graph.respondWith(undefined);
      const reactivated = await t
        .http()
        .put(`/v1/channels/whatsapp/${wa.id}`)
        .set(auth)
        .send({ access_token: 'EAAG-fresh' })
        .expect(200);
      expect(reactivated.body.data.status).toBe('active');
      await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
      });
      const [sent] = await graph.waitForMessages(1);
      expect(sent.accessToken).toBe('EAAG-fresh');
    });
  });

  describe('with a heartbeat that only beats on its own once a minute', () => {
    beforeEach(async () =>
      boot({
        DELIVERY_HEARTBEAT_MS: '60000',
        DELIVERY_HEARTBEAT_TIMEOUT_MS: '120000',
        DELIVERY_LEASE_MS: '180000',
      }),
    );

    it('claims nothing while its own heartbeat is stale, and again once it has beaten', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await eventually(async () =>
        expect(
          await t.app.get(DataSource).query('SELECT id FROM scheduler_processes'),
        ).toHaveLength(1),
      );
      // As after a stall: this process's last beat is older than half a time-out.
      await t.app
        .get(DataSource)
        .query("UPDATE scheduler_processes SET beaten_at = now() - interval '61 seconds'");
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(graph.requests).toBe(0);
      expect((await deliveries(created.id))[0]).toMatchObject({ status: 'pending', attempts: 0 });
      await t.app.get(DataSource).query('UPDATE scheduler_processes SET beaten_at = now()');
      await graph.waitForMessages(1);
      await eventually(async () =>
        expect((await deliveries(created.id))[0]).toMatchObject({ status: 'sent', attempts: 1 }),
      );
    });
  });

  describe('with two attempts at most', () => {
    beforeEach(async () => boot({ DELIVERY_MAX_ATTEMPTS: '2' }));

    it('fails a delivery after its last transient failure', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.respondWith(() => ({ status: 500, rawBody: 'oops' }));
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
      });
      await eventually(async () =>
        expect((await deliveries(created.id))[0]).toMatchObject({ status: 'pending', attempts: 1 }),
      );
      clock.advance(HOUR);
      await eventually(async () => {
        const [row] = await deliveries(created.id);
        expect(row).toMatchObject({
          status: 'failed',
          attempts: 2,
          last_error: { code: 'http_500' },
        });
      });
    });
  });

  describe('with a per-channel rate limit', () => {
    beforeEach(async () => boot({ CHANNEL_RATE_LIMIT_PER_SECOND: '2' }));

    it('sends at most the limit per second through one channel', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: [
          '+34612345678',
          '+34612345679',
          '+34612345670',
          '+34612345671',
          '+34612345672',
        ],
      });
      const received = await graph.waitForMessages(5, 15_000);
      // Windows are the database's seconds (one clock for every replica): 5 sends at 2 per second
      // take three windows, so they cannot all go out within one second.
      const times = received.map((message) => message.receivedAt).sort((a, b) => a - b);
      expect(times[4] - times[0]).toBeGreaterThanOrEqual(900);
      const windows: { sent: number }[] = await t.app
        .get(DataSource)
        .query('SELECT sent FROM channel_send_windows WHERE channel_id = $1', [wa.id]);
      expect(windows.map((w) => Number(w.sent)).every((sent) => sent <= 2)).toBe(true);
      expect(windows.reduce((sum, w) => sum + Number(w.sent), 0)).toBe(5);
    });
  });

  describe('with an LLM writing the messages', () => {
    let llm: FakeLlm;
    beforeAll(async () => {
      llm = await FakeLlm.start();
    });
    afterAll(async () => llm.close());
    beforeEach(async () => {
      llm.reset();
      await boot({
        AGENT_LLM_URL: llm.url,
        AGENT_LLM_MODEL: 'test-model',
        AGENT_LLM_API_KEY: 'sk-test-key',
      });
    });

    type Ids = { channel: string; followUp: string };
    it.each([
      ['follow-up was deleted', (ids: Ids) => `/v1/scheduler/follow-up/whatsapp/${ids.followUp}`],
      ['channel was removed', (ids: Ids) => `/v1/channels/whatsapp/${ids.channel}`],
    ])(
      'never calls Meta for a delivery whose %s while its message was written',
      async (_name, removed) => {
        llm.enqueue({ content: 'Your order has shipped.', delayMs: 1_000 });
        const wa = await givenWhatsappChannel(t, auth);
        const created = await givenFollowUp(t, auth, wa.id, {
          frequency: 'once',
          client_phone_numbers: ['+34612345678'],
        });
        // Claimed and composing: the DELETE cannot cancel the row, only the check before the call.
        await eventually(async () => expect(llm.requests).toHaveLength(1));
        await t
          .http()
          .delete(removed({ channel: wa.id, followUp: created.id }))
          .set(auth)
          .expect(204);
        await eventually(async () =>
          expect(
            await t.app
              .get(DataSource)
              .query('SELECT status, attempts FROM deliveries WHERE follow_up_id = $1', [
                created.id,
              ]),
          ).toEqual([{ status: 'cancelled', attempts: 0 }]),
        );
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(graph.requests).toBe(0);
      },
    );

    it('sends what the model wrote, without giving it the phone number', async () => {
      llm.setContent(() => 'Hi {{phone}}, your order has shipped!');
      const wa = await givenWhatsappChannel(t, auth);
      await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
        title: 'Order 7',
      });
      const [message] = await graph.waitForMessages(1);
      expect(message.body).toBe('Hi +34612345678, your order has shipped!');
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]).toMatchObject({
        model: 'test-model',
        authorization: 'Bearer sk-test-key',
      });
      expect(JSON.stringify(llm.requests[0].messages)).toContain('Order 7');
      expect(JSON.stringify(llm.requests[0].body)).not.toContain('612345678');
      expect(t.logs()).not.toContain('sk-test-key');
    });

    it('retries a delivery when the model fails, like any transient failure', async () => {
      llm.enqueue({ status: 500, body: openAiError('The server had an error', 'server_error') });
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
      });
      await eventually(async () => {
        const [row] = await deliveries(created.id);
        expect(row).toMatchObject({
          status: 'pending',
          attempts: 1,
          last_error: { code: 'llm_http_500' },
        });
      });
      expect(graph.requests).toBe(0);
      clock.advance(10 * 60_000);
      await graph.waitForMessages(1);
      await eventually(async () =>
        expect((await deliveries(created.id))[0]).toMatchObject({ status: 'sent', attempts: 2 }),
      );
    });
  });
});

/**
 * The outbox's take-over, driven directly on a real database (no scheduler running): what a
 * dead process held goes back to the queue ahead of the rows due at the same time.
 */
describe('Taking over a dead process’s claims (e2e, outbox on a real database)', () => {
  let t: TestApp;
  const auth = bearer(tokenFor({ org: newOrganization() }));
  beforeAll(async () => (t = await startApp({ SCHEDULER_ENABLED: 'false' })));
  afterAll(async () => t.close());

  it('puts a dead process’s claim ahead of the rows due at the same time (one large occurrence)', async () => {
    const sql = (text: string, parameters: unknown[] = []) =>
      t.app.get(DataSource).query(text, parameters);
    const channel = await givenWhatsappChannel(t, auth);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const sent = await givenOutgoingMessage(t, auth, channel, {
        to: `+3461234${String(i).padStart(4, '0')}`,
        template: { name: 'order_update', language: 'en_US', parameters: ['Thursday'] },
      });
      ids.push(sent.id);
    }
    // One occurrence: every row due at the same time; the last one claimed by a process that has
    // not beaten for an hour, judged by one that has beaten for an hour.
    const dead = randomUUID();
    const reaper = randomUUID();
    await sql(
      `INSERT INTO scheduler_processes (id, host, pid, started_at, beaten_at, beating_since)
       VALUES ($1, 'h', 1, now() - interval '2 hours', now() - interval '1 hour', now() - interval '2 hours'),
              ($2, 'h', 2, now() - interval '2 hours', clock_timestamp(), now() - interval '2 hours')`,
      [dead, reaper],
    );
    const taken = ids[ids.length - 1];
    await sql(`UPDATE deliveries SET next_attempt_at = '2026-11-02T08:00:00Z' WHERE id = ANY($1)`, [
      ids,
    ]);
    await sql(
      `UPDATE deliveries SET status = 'sending', lease_owner = $2, attempts = 1,
              lease_expires_at = now() + interval '1 hour' WHERE id = $1`,
      [taken, dead],
    );
    const outbox = t.app.get(DeliveryOutbox);
    expect(
      await outbox.reapAbandoned(reaper, Date.now(), 8, {
        timeoutMs: 6_000,
        sessionUnbroken: false,
      }),
    ).toBe(1);
    const [first] = await outbox.claim({
      owner: reaper,
      heartbeatTimeoutMs: 6_000,
      now: Date.now(),
      limit: 1,
      leaseMs: 60_000,
      ratePerSecond: 0,
    });
    expect(first.id).toBe(taken);
  });
});
