import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { aFollowUp, aWhatsappChannel } from './support/factories';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import {
  givenFollowUp,
  givenInboundMessage,
  givenMessangerChannel,
  givenMessangerNotification,
  givenWhatsappChannel,
  givenWhatsappNotification,
  WhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import { aWhatsappStatus } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'meta-app-secret-conversations';
const HOUR = 3_600_000;

interface Delivery {
  id: string;
  phone: string;
  status: string;
  attempts: number;
  message_type: string;
  wa_message_id: string | null;
  sent_at: number | null;
  delivered_at: number | null;
  read_at: number | null;
  pricing: {
    category: string | null;
    billable: boolean | null;
    pricing_model: string | null;
  } | null;
  last_error: { code: string; message: string } | null;
}

const TEMPLATE = {
  name: 'weekly_check_in',
  language: 'en_US',
  parameters: ['{{title}}', '{{message}}'],
};

/**
 * The conversation loop a user sees: clients write (webhooks), follow-ups choose text or template
 * by the 24-hour window, Meta's statuses move deliveries, STOP skips a number, and a removed
 * channel stops its work.
 */
describe('Conversations on WhatsApp (e2e)', () => {
  let graph: FakeGraphApi;
  let clock: ManualClock;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        GRAPH_API_TIMEOUT_MS: '1500',
        META_APP_SECRET: SECRET,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });
  let org: string;
  beforeEach(() => {
    graph.reset();
    org = newOrganization();
    auth = bearer(tokenFor({ org }));
  });

  /** Once, titled Order 42, unless said. */
  const followUp = (channelId: string, overrides: Record<string, unknown>) =>
    givenFollowUp(t, auth, channelId, { frequency: 'once', title: 'Order 42', ...overrides });
  const deliveries = async (id: string): Promise<Delivery[]> =>
    (await t.http().get(`/v1/scheduler/follow-up/whatsapp/${id}/deliveries`).set(auth).expect(200))
      .body.data.items;
  const notify = (wa: WhatsappChannel, value: { statuses: unknown[] }) =>
    givenWhatsappNotification(t, wa, SECRET, value);
  /** A client writes to the channel at `at` (Meta's timestamp). */
  const clientWrites = (wa: WhatsappChannel, from: string, body: string, at = clock.now()) =>
    givenInboundMessage(t, wa, SECRET, { from, body, at });
  const status = (id: string, name: string, at: number, errors?: unknown[]) =>
    aWhatsappStatus(id, name, { at, errors });
  const settled = async (id: string, expected: string[]) =>
    eventually(async () => {
      const items = await deliveries(id);
      expect(items.map((d) => d.status).sort()).toEqual([...expected].sort());
      return items;
    });

  it('validates and returns the template', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    const created = await followUp(wa.id, { frequency: 'daily', template: TEMPLATE });
    expect(created.template).toEqual(TEMPLATE);
    for (const [template, field] of [
      [{ ...TEMPLATE, name: 'Weekly Check-in' }, 'template.name'],
      [{ ...TEMPLATE, language: 'english' }, 'template.language'],
      [{ ...TEMPLATE, parameters: 'x' }, 'template.parameters'],
      [{ name: 'ok', language: 'en', parameters: [1] }, 'template.parameters'],
      [null, 'template'],
    ] as const) {
      const res = await t
        .http()
        .post('/v1/scheduler/follow-up/whatsapp')
        .set(auth)
        .send(aFollowUp(wa.id, { template }))
        .expect(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('sends text inside the 24-hour window and the template outside it', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    await clientWrites(wa, '34612345678', 'Any news about my order?', clock.now() - 2 * HOUR);
    await clientWrites(wa, '14155552671', 'Hello', clock.now() - 25 * HOUR);
    await eventually(async () => {
      const res = await t.http().get(`/v1/channels/whatsapp/${wa.id}/messages`).set(auth);
      expect(res.body.data.total_count).toBe(2);
    });
    const created = await followUp(wa.id, {
      client_phone_numbers: ['+34612345678', '+14155552671'],
      prompt: 'How was {{title}}?',
      template: TEMPLATE,
    });
    const received = await graph.waitForMessages(2);
    const byTo = new Map(received.map((m) => [m.to, m]));
    expect(byTo.get('34612345678')).toMatchObject({ body: 'How was Order 42?' });
    expect(byTo.get('34612345678')?.template).toBeUndefined();
    expect(byTo.get('14155552671')?.template).toEqual({
      name: 'weekly_check_in',
      languageCode: 'en_US',
      bodyParameters: ['Order 42', 'How was Order 42?'],
    });
    const rows = await settled(created.id, ['sent', 'sent']);
    expect(Object.fromEntries(rows.map((d) => [d.phone, d.message_type]))).toEqual({
      '+34612345678': 'text',
      '+14155552671': 'template',
    });
  });

  it('sends text outside the window when the follow-up has no template', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
    const [message] = await graph.waitForMessages(1);
    expect(message.template).toBeUndefined();
    const [row] = await settled(created.id, ['sent']);
    expect(row.message_type).toBe('text');
  });

  it('moves a delivery forward only, whatever order the statuses come in', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    await clientWrites(wa, '34612345678', 'hi');
    const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
    const [row] = await settled(created.id, ['sent']);
    expect(row).toMatchObject({ delivered_at: null, read_at: null });
    const wamid = row.wa_message_id as string;
    const at = clock.now();
    await notify(wa, { statuses: [status(wamid, 'delivered', at + 1000)] });
    await eventually(async () =>
      expect((await deliveries(created.id))[0]).toMatchObject({
        status: 'delivered',
        delivered_at: at + 1000,
        read_at: null,
      }),
    );
    await notify(wa, { statuses: [status(wamid, 'read', at + 5000)] });
    // Late and resent statuses change nothing.
    await notify(wa, {
      statuses: [status(wamid, 'sent', at), status(wamid, 'delivered', at + 2000)],
    });
    await notify(wa, {
      statuses: [status(wamid, 'failed', at + 6000, [{ code: 131026, title: 'Undeliverable' }])],
    });
    await eventually(async () =>
      expect((await deliveries(created.id))[0]).toMatchObject({
        status: 'read',
        delivered_at: at + 1000,
        read_at: at + 5000,
        last_error: null,
      }),
    );
  });

  it('applies a status that arrives before the send’s own answer is written', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    // The fake keeps the message at once and answers a second later.
    graph.latencyMs = 1_000;
    try {
      const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
      const [message] = await graph.waitForMessages(1);
      await notify(wa, { statuses: [status(message.wamid, 'delivered', clock.now() + 500)] });
      await eventually(async () => {
        const rows: { status: string }[] = await t.app
          .get(DataSource)
          .query('SELECT status FROM webhook_inbox WHERE channel_id = $1', [wa.id]);
        expect(rows).toEqual([{ status: 'processed' }]);
      });
      // Processed while the delivery was still being sent: nothing matched it then.
      expect((await deliveries(created.id))[0].status).toBe('sending');
      const [row] = await settled(created.id, ['delivered']);
      expect(row).toMatchObject({
        wa_message_id: message.wamid,
        delivered_at: Math.floor((clock.now() + 500) / 1000) * 1000,
      });
    } finally {
      graph.latencyMs = 0;
    }
  });

  describe('a failed status that arrives before the send’s own answer is written', () => {
    /** The send answered a second after Meta kept it; `errors` reported in between. */
    const failedEarly = async (wa: WhatsappChannel, followUpId: string, errors: unknown[]) => {
      const [message] = await graph.waitForMessages(1);
      await notify(wa, { statuses: [status(message.wamid, 'failed', clock.now() + 500, errors)] });
      await eventually(async () => {
        const rows: { status: string }[] = await t.app
          .get(DataSource)
          .query(
            "SELECT status FROM webhook_inbox WHERE channel_id = $1 AND status <> 'processed'",
            [wa.id],
          );
        expect(rows).toEqual([]);
      });
      expect((await deliveries(followUpId))[0].status).toBe('sending');
      graph.latencyMs = 0;
    };
    afterEach(() => {
      graph.latencyMs = 0;
    });

    it('fails the delivery with Meta’s error once the answer is written', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.latencyMs = 1_000;
      const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
      await failedEarly(wa, created.id, [{ code: 131026, title: 'Message undeliverable' }]);
      const [row] = await settled(created.id, ['failed']);
      expect(row.last_error).toEqual({ code: '131026', message: 'Message undeliverable' });
      expect(graph.requests).toBe(1);
    });

    it('131047: re-sends the text as the template, as when it arrives after', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await clientWrites(wa, '34612345678', 'hi');
      graph.latencyMs = 1_000;
      const created = await followUp(wa.id, {
        client_phone_numbers: ['+34612345678'],
        template: TEMPLATE,
      });
      await failedEarly(wa, created.id, [{ code: 131047, title: 'Re-engagement message' }]);
      const messages = await graph.waitForMessages(2);
      expect(messages[1].template?.name).toBe('weekly_check_in');
      const [row] = await settled(created.id, ['sent']);
      expect(row).toMatchObject({ attempts: 2, message_type: 'template' });
    });
  });

  it("shows Meta's pricing from the last status that carried it, also one that overtook the send", async () => {
    const wa = await givenWhatsappChannel(t, auth);
    graph.latencyMs = 1_000;
    try {
      const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
      const [message] = await graph.waitForMessages(1);
      const priced = (name: string, offset: number, category: string) => ({
        ...status(message.wamid, name, clock.now() + offset),
        pricing: { billable: true, pricing_model: 'PMP', category, type: 'regular' },
      });
      // Meta's `sent` status, before the send's own answer is written.
      await notify(wa, { statuses: [priced('sent', 100, 'utility')] });
      const [sent] = await settled(created.id, ['sent']);
      expect(sent.pricing).toEqual({ category: 'utility', billable: true, pricing_model: 'PMP' });
      await notify(wa, { statuses: [priced('delivered', 200, 'marketing')] });
      await eventually(async () =>
        expect((await deliveries(created.id))[0]).toMatchObject({
          status: 'delivered',
          pricing: { category: 'marketing', billable: true, pricing_model: 'PMP' },
        }),
      );
    } finally {
      graph.latencyMs = 0;
    }
  });

  it('a read before any delivered sets both; a failed status fails a sent message with Meta’s error', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    const created = await followUp(wa.id, {
      client_phone_numbers: ['+34612345678', '+14155552671'],
    });
    const rows = await settled(created.id, ['sent', 'sent']);
    const [first, second] = rows;
    const at = clock.now();
    await notify(wa, {
      statuses: [
        status(first.wa_message_id as string, 'read', at + 3000),
        status(second.wa_message_id as string, 'failed', at + 1000, [
          { code: 131026, title: 'Message undeliverable' },
        ]),
      ],
    });
    await eventually(async () => {
      const byId = new Map((await deliveries(created.id)).map((d) => [d.id, d]));
      expect(byId.get(first.id)).toMatchObject({
        status: 'read',
        delivered_at: at + 3000,
        read_at: at + 3000,
      });
      expect(byId.get(second.id)).toMatchObject({
        status: 'failed',
        last_error: { code: '131026', message: 'Message undeliverable' },
      });
    });
  });

  describe("Meta's 131047 (outside the window)", () => {
    const outsideWindow = graphErrorReply(
      400,
      131047,
      'Re-engagement message: more than 24 hours have passed since the recipient last replied.',
    );

    it('from the send call: re-sends at once as the template, on the same delivery', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      // Agentline believes the window is open; Meta disagrees.
      await clientWrites(wa, '34612345678', 'hi');
      graph.enqueue(outsideWindow);
      const created = await followUp(wa.id, {
        client_phone_numbers: ['+34612345678'],
        template: TEMPLATE,
      });
      const [message] = await graph.waitForMessages(1);
      expect(message.template?.name).toBe('weekly_check_in');
      expect(graph.requests).toBe(2);
      const [row] = await settled(created.id, ['sent']);
      expect(row).toMatchObject({ attempts: 2, message_type: 'template' });
    });

    it('from the send call without a template: fails for good, no retry', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.enqueue(outsideWindow);
      const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
      const [row] = await settled(created.id, ['failed']);
      expect(row).toMatchObject({ attempts: 1, last_error: { code: '131047' } });
      expect(graph.requests).toBe(1);
    });

    it('from a failed status: re-sends the delivery as the template, once', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await clientWrites(wa, '34612345678', 'hi');
      const created = await followUp(wa.id, {
        client_phone_numbers: ['+34612345678'],
        template: TEMPLATE,
      });
      const [sent] = await settled(created.id, ['sent']);
      const failed = status(sent.wa_message_id as string, 'failed', clock.now(), [
        { code: 131047, title: 'Re-engagement message' },
      ]);
      await notify(wa, { statuses: [failed] });
      await notify(wa, { statuses: [failed] }); // resent by Meta
      const messages = await graph.waitForMessages(2);
      expect(messages[1].template?.name).toBe('weekly_check_in');
      const [row] = await eventually(async () => {
        const items = await deliveries(created.id);
        expect(items[0]).toMatchObject({ status: 'sent', attempts: 2, message_type: 'template' });
        return items;
      });
      expect(row.wa_message_id).toBe(messages[1].wamid);
      // The template's own 131047 (should Meta send one) fails it for good.
      await notify(wa, {
        statuses: [
          status(messages[1].wamid, 'failed', clock.now(), [
            { code: 131047, title: 'Re-engagement message' },
          ]),
        ],
      });
      await settled(created.id, ['failed']);
      expect(graph.requests).toBe(2);
    });

    it('from a failed status of a template sent as such (outside the window): fails for good', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await followUp(wa.id, {
        client_phone_numbers: ['+34612345678'],
        template: TEMPLATE,
      });
      const [sent] = await settled(created.id, ['sent']);
      expect(sent.message_type).toBe('template');
      await notify(wa, {
        statuses: [
          status(sent.wa_message_id as string, 'failed', clock.now(), [
            { code: 131047, title: 'Re-engagement message' },
          ]),
        ],
      });
      const [row] = await settled(created.id, ['failed']);
      expect(row).toMatchObject({ attempts: 1, message_type: 'template' });
      expect(graph.requests).toBe(1);
    });

    it('from a failed status without a template: fails for good', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await clientWrites(wa, '34612345678', 'hi');
      const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
      const [sent] = await settled(created.id, ['sent']);
      await notify(wa, {
        statuses: [
          status(sent.wa_message_id as string, 'failed', clock.now(), [
            { code: 131047, title: 'Re-engagement message' },
          ]),
        ],
      });
      const [row] = await settled(created.id, ['failed']);
      expect(row.last_error).toEqual({ code: '131047', message: 'Re-engagement message' });
      expect(graph.requests).toBe(1);
    });
  });

  it('skips a number that sent STOP (opted_out), and writes to it again after START', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    await clientWrites(wa, '34612345678', 'STOP');
    await eventually(async () => {
      const res = await t.http().get(`/v1/channels/whatsapp/${wa.id}/opt-outs`).set(auth);
      expect(res.body.data.total_count).toBe(1);
    });
    const created = await followUp(wa.id, {
      client_phone_numbers: ['+34612345678', '+14155552671'],
    });
    const rows = await settled(created.id, ['sent', 'skipped']);
    expect(rows.find((d) => d.phone === '+34612345678')).toMatchObject({
      status: 'skipped',
      last_error: { code: 'opted_out' },
    });
    expect(graph.messages.map((m) => m.to)).toEqual(['14155552671']);

    await clientWrites(wa, '34612345678', 'start');
    await eventually(async () => {
      const res = await t.http().get(`/v1/channels/whatsapp/${wa.id}/opt-outs`).set(auth);
      expect(res.body.data.total_count).toBe(0);
    });
    const again = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
    await settled(again.id, ['sent']);
  });

  it('pages the opt-outs with the total on every page, also past the end', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    for (const number of ['+34612345678', '+34612345679', '+34612345670']) {
      await t.http().put(`/v1/channels/whatsapp/${wa.id}/opt-outs/${number}`).set(auth).expect(204);
    }
    const page = async (query: string) =>
      (await t.http().get(`/v1/channels/whatsapp/${wa.id}/opt-outs?${query}`).set(auth).expect(200))
        .body.data as { items: { phone: string }[]; offset: number; total_count: number };
    const first = await page('limit=2');
    const second = await page('offset=2&limit=2');
    expect(first).toMatchObject({ offset: 0, total_count: 3 });
    expect(second).toMatchObject({ offset: 2, total_count: 3 });
    expect([...first.items, ...second.items].map((item) => item.phone).sort()).toEqual([
      '+34612345670',
      '+34612345678',
      '+34612345679',
    ]);
    expect(await page('offset=5')).toEqual({ items: [], offset: 5, total_count: 3 });
    const empty = await givenWhatsappChannel(t, auth);
    expect(
      (await t.http().get(`/v1/channels/whatsapp/${empty.id}/opt-outs`).set(auth).expect(200)).body
        .data,
    ).toEqual({ items: [], offset: 0, total_count: 0 });
  });

  it('an opt-out by API takes effect for deliveries already in the outbox', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    // The first send hangs until the time-out, so the daily follow-up's row waits for its retry.
    graph.enqueue('hang');
    const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
    await eventually(async () => {
      const [row] = await deliveries(created.id);
      expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    });
    await t
      .http()
      .put(`/v1/channels/whatsapp/${wa.id}/opt-outs/+34612345678`)
      .set(auth)
      .expect(204);
    clock.advance(HOUR);
    const [row] = await settled(created.id, ['skipped']);
    expect(row.last_error?.code).toBe('opted_out');
    expect(graph.messages).toEqual([]);
  });

  describe('channels are read, listed and removed', () => {
    it('gets and lists channels of the organization, filtered by agent, newest first', async () => {
      const first = await givenWhatsappChannel(t, auth);
      const second = await givenWhatsappChannel(t, auth, { agent_id: 'agent-2' });
      const fb = await givenMessangerChannel(t, auth);
      expect(
        (await t.http().get(`/v1/channels/whatsapp/${first.id}`).set(auth).expect(200)).body.data,
      ).toEqual(first);
      expect(
        (await t.http().get(`/v1/channels/messanger/${fb.id}`).set(auth).expect(200)).body.data,
      ).toEqual(fb);
      const all = (await t.http().get('/v1/channels/whatsapp').set(auth).expect(200)).body.data;
      expect(all).toEqual({ items: [second, first], offset: 0, total_count: 2 });
      const filtered = (
        await t.http().get('/v1/channels/whatsapp?agent_id=agent-2&limit=1').set(auth).expect(200)
      ).body.data;
      expect(filtered).toEqual({ items: [second], offset: 0, total_count: 1 });
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      await t.http().get(`/v1/channels/whatsapp/${first.id}`).set(stranger).expect(404);
      await t.http().get(`/v1/channels/messanger/${first.id}`).set(auth).expect(404);
      await t.http().delete(`/v1/channels/whatsapp/${first.id}`).set(stranger).expect(404);
      await t.http().delete(`/v1/channels/messanger/${fb.id}`).set(stranger).expect(404);
      expect(
        (await t.http().get('/v1/channels/whatsapp').set(stranger).expect(200)).body.data
          .total_count,
      ).toBe(0);
    });

    it('removing a channel cancels its pending deliveries, stops its follow-ups and closes its webhooks', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.enqueue('hang');
      const once = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
      const daily = await followUp(wa.id, {
        frequency: 'daily',
        client_phone_numbers: ['+14155552671'],
      });
      await eventually(async () => {
        const [row] = await deliveries(once.id);
        expect(row).toMatchObject({ status: 'pending', attempts: 1 });
      });
      await t.http().delete(`/v1/channels/whatsapp/${wa.id}`).set(auth).expect(204);
      await t.http().delete(`/v1/channels/whatsapp/${wa.id}`).set(auth).expect(404);
      await t.http().get(`/v1/channels/whatsapp/${wa.id}`).set(auth).expect(404);
      await t
        .http()
        .put(`/v1/channels/whatsapp/${wa.id}`)
        .set(auth)
        .send({ access_token: 'EAAG-new' })
        .expect(404);
      expect((await deliveries(once.id))[0].status).toBe('cancelled');
      const stopped = (
        await t.http().get(`/v1/scheduler/follow-up/whatsapp/${daily.id}`).set(auth).expect(200)
      ).body;
      expect(stopped).toMatchObject({ status: 'completed', next_run_at: null });
      await t
        .http()
        .get(`/v1/webhooks/whatsapp/${wa.id}`)
        .query({
          'hub.mode': 'subscribe',
          'hub.verify_token': wa.verification_token,
          'hub.challenge': '1',
        })
        .expect(403);
      // Its number can be bound again.
      await t
        .http()
        .post('/v1/channels/whatsapp')
        .set(auth)
        .send(aWhatsappChannel({ number_id: wa.number_id }))
        .expect(201);
      clock.advance(2 * HOUR);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.messages).toEqual([]);
    });

    it('shows why Meta made a channel inactive, until a new token reactivates it', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.enqueue(
        graphErrorReply(401, 190, 'Error validating access token: Session has expired'),
      );
      const created = await followUp(wa.id, { client_phone_numbers: ['+34612345678'] });
      await settled(created.id, ['failed']);
      const inactive = (await t.http().get(`/v1/channels/whatsapp/${wa.id}`).set(auth).expect(200))
        .body.data;
      expect(inactive).toMatchObject({
        status: 'inactive',
        status_reason: { code: '190', message: expect.stringContaining('Session has expired') },
      });
      const repaired = (
        await t
          .http()
          .put(`/v1/channels/whatsapp/${wa.id}`)
          .set(auth)
          .send({ access_token: 'EAAG-fresh' })
          .expect(200)
      ).body.data;
      expect(repaired).toMatchObject({ status: 'active', status_reason: null });
    });
  });

  describe('sending now', () => {
    const send = (kind: string, id: string, body: Record<string, unknown>, as = auth) =>
      t.http().post(`/v1/channels/${kind}/${id}/messages`).set(as).send(body);
    const channelDeliveries = async (kind: string, id: string): Promise<Delivery[]> =>
      (await t.http().get(`/v1/channels/${kind}/${id}/deliveries`).set(auth).expect(200)).body.data
        .items;

    it('answers a WhatsApp client with text (202), through the outbox, and follows its statuses', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await clientWrites(wa, '34612345678', 'Where is my order?');
      const res = await send('whatsapp', wa.id, {
        to: '+34 612 345 678',
        text: 'On its way!',
      }).expect(202);
      expect(res.body.data).toMatchObject({
        follow_up_id: null,
        channel_id: wa.id,
        phone: '+34612345678',
        status: 'pending',
        message_type: 'text',
      });
      const [message] = await graph.waitForMessages(1);
      expect(message).toMatchObject({ to: '34612345678', body: 'On its way!' });
      const [sent] = await eventually(async () => {
        const items = await channelDeliveries('whatsapp', wa.id);
        expect(items[0]).toMatchObject({ id: res.body.data.id, status: 'sent' });
        return items;
      });
      await notify(wa, { statuses: [status(sent.wa_message_id as string, 'read', clock.now())] });
      await eventually(async () =>
        expect((await channelDeliveries('whatsapp', wa.id))[0].status).toBe('read'),
      );
    });

    it('sends a template as given', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await send('whatsapp', wa.id, {
        to: '+34612345678',
        template: { name: 'order_update', language: 'es', parameters: ['42', '{{title}}'] },
      }).expect(202);
      const [message] = await graph.waitForMessages(1);
      expect(message.template).toEqual({
        name: 'order_update',
        languageCode: 'es',
        bodyParameters: ['42', '{{title}}'],
      });
    });

    it('validates the body: exactly one of text and template, a valid number', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      for (const [body, field] of [
        [{ to: '+34612345678' }, 'text'],
        [{ to: '+34612345678', text: 'a', template: TEMPLATE }, 'template'],
        [{ to: '12', text: 'a' }, 'to'],
        [{ to: '+34612345678', text: '' }, 'text'],
        [{ to: '+34612345678', template: { ...TEMPLATE, name: 'Bad Name' } }, 'template.name'],
      ] as const) {
        const res = await send('whatsapp', wa.id, body).expect(400);
        expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      }
      await send('messanger', wa.id, { to: 'not-a-psid', text: 'a' }).expect(400);
    });

    it('records a message to an opted-out number as skipped, and never sends it', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await t
        .http()
        .put(`/v1/channels/whatsapp/${wa.id}/opt-outs/34612345678`)
        .set(auth)
        .expect(204);
      const res = await send('whatsapp', wa.id, { to: '+34612345678', text: 'hello' }).expect(202);
      expect(res.body.data).toMatchObject({ status: 'skipped', last_error: { code: 'opted_out' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.requests).toBe(0);
    });

    it('replies on Messenger inside its 24-hour window, refuses outside it, and follows reads', async () => {
      const fb = await givenMessangerChannel(t, auth);
      await givenMessangerNotification(t, fb, SECRET, '6543210987', [
        { timestamp: clock.now() - HOUR, message: { mid: 'm_in_1', text: 'Is the shop open?' } },
      ]);
      await eventually(async () => {
        const res = await t.http().get(`/v1/channels/messanger/${fb.id}/messages`).set(auth);
        expect(res.body.data.total_count).toBe(1);
      });
      const refused = await send('messanger', fb.id, { to: '1111111111', text: 'Hello?' }).expect(
        422,
      );
      expect(refused.body.code).toBe('outside_messaging_window');
      const res = await send('messanger', fb.id, {
        to: '6543210987',
        text: 'Open until 8 pm.',
      }).expect(202);
      expect(res.body.data).toMatchObject({
        channel_id: fb.id,
        phone: '6543210987',
        follow_up_id: null,
      });
      const [message] = await graph.waitForMessages(1);
      expect(message).toMatchObject({
        numberId: fb.user_id,
        to: '6543210987',
        body: 'Open until 8 pm.',
        messagingType: 'RESPONSE',
      });
      await eventually(async () =>
        expect((await channelDeliveries('messanger', fb.id))[0]).toMatchObject({
          status: 'sent',
          wa_message_id: message.wamid,
        }),
      );
      await givenMessangerNotification(t, fb, SECRET, '6543210987', [
        { timestamp: clock.now() + 5000, read: { watermark: clock.now() + 1000 } },
      ]);
      await eventually(async () =>
        expect((await channelDeliveries('messanger', fb.id))[0].status).toBe('read'),
      );
    });

    it('deactivates a Messanger channel whose Page token Meta rejects, and says why', async () => {
      const fb = await givenMessangerChannel(t, auth);
      await givenMessangerNotification(t, fb, SECRET, '777', [
        { timestamp: clock.now(), message: { mid: 'm_hi', text: 'hi' } },
      ]);
      await eventually(async () => {
        const res = await t.http().get(`/v1/channels/messanger/${fb.id}/messages`).set(auth);
        expect(res.body.data.total_count).toBe(1);
      });
      graph.enqueue(
        graphErrorReply(
          401,
          190,
          'Error validating access token: The session has been invalidated',
        ),
      );
      await send('messanger', fb.id, { to: '777', text: 'hello' }).expect(202);
      await eventually(async () =>
        expect((await channelDeliveries('messanger', fb.id))[0]).toMatchObject({
          status: 'failed',
          last_error: { code: '190' },
        }),
      );
      const inactive = (await t.http().get(`/v1/channels/messanger/${fb.id}`).set(auth).expect(200))
        .body.data;
      expect(inactive.status_reason).toEqual({
        code: '190',
        message: expect.stringContaining('invalidated'),
      });
      expect(inactive).not.toHaveProperty('status');
      const refused = await send('messanger', fb.id, { to: '777', text: 'again' }).expect(422);
      expect(refused.body.code).toBe('channel_not_usable');
      const repaired = (
        await t
          .http()
          .put(`/v1/channels/messanger/${fb.id}`)
          .set(auth)
          .send({ user_id: fb.user_id, access_token: 'EAAG-fresh-page-token' })
          .expect(200)
      ).body.data;
      expect(repaired.status_reason).toBeNull();
    });

    it("answers 404 for another organization's channel on every sending route", async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const fb = await givenMessangerChannel(t, auth);
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      await send('whatsapp', wa.id, { to: '+34612345678', text: 'x' }, stranger).expect(404);
      await send('messanger', fb.id, { to: '123', text: 'x' }, stranger).expect(404);
      await send('messanger', wa.id, { to: '123', text: 'x' }).expect(404);
      await t.http().get(`/v1/channels/whatsapp/${wa.id}/deliveries`).set(stranger).expect(404);
      await t.http().get(`/v1/channels/messanger/${fb.id}/deliveries`).set(stranger).expect(404);
      expect(graph.requests).toBe(0);
    });
  });
});
