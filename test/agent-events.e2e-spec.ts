import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { FakeAgentEndpoint } from './support/fake-agent-endpoint';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import {
  givenFollowUp,
  givenInboundMessage,
  givenWhatsappChannel,
  givenWhatsappNotification,
  WhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import { aWhatsappStatus } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const META_SECRET = 'meta-app-secret-for-events';
const EVENTS_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

describe('Agent events (e2e)', () => {
  let endpoint: FakeAgentEndpoint;
  let graph: FakeGraphApi;
  let t: TestApp;
  /** Moved past each retry's backoff by the retry test, instead of waiting for it. */
  let clock: ManualClock;
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    endpoint = await FakeAgentEndpoint.start();
    graph = await FakeGraphApi.start();
    clock = new ManualClock(Date.now());
    t = await startApp(
      {
        AGENT_EVENTS_URL: endpoint.url,
        AGENT_EVENTS_SECRET: EVENTS_SECRET,
        AGENT_EVENTS_TIMEOUT_MS: '1500',
        META_APP_SECRET: META_SECRET,
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await graph.close();
  });
  beforeEach(() => {
    org = newOrganization();
    auth = bearer(tokenFor({ org }));
    endpoint.received.length = 0;
    graph.reset();
  });

  const clientWrites = (wa: WhatsappChannel, body: string) =>
    givenInboundMessage(t, wa, META_SECRET, { body });

  it('POSTs message.received once, signed per Standard Webhooks', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    await clientWrites(wa, 'Hello agent');
    const [event] = await eventually(async () => {
      const events = endpoint.events('message.received');
      expect(events).toHaveLength(1);
      return events;
    });
    // The receiver's side: the standardwebhooks library verifies the exact bytes and headers.
    const verified = new Webhook(EVENTS_SECRET).verify(event.raw, {
      'webhook-id': String(event.headers['webhook-id']),
      'webhook-timestamp': String(event.headers['webhook-timestamp']),
      'webhook-signature': String(event.headers['webhook-signature']),
    });
    expect(verified).toEqual({
      type: 'message.received',
      organization_id: org,
      agent_id: 'agent-1',
      channel_id: wa.id,
      data: {
        id: expect.any(String),
        channel_id: wa.id,
        from: '+34612345678',
        from_user_id: null,
        profile: null,
        message_id: expect.stringMatching(/^wamid\./),
        type: 'text',
        text: 'Hello agent',
        content: null,
        context: null,
        referral: null,
        raw: expect.objectContaining({ type: 'text', text: { body: 'Hello agent' } }),
        received_at: expect.any(Number),
      },
    });
    expect(event.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(event.raw, {
        'webhook-id': String(event.headers['webhook-id']),
        'webhook-timestamp': String(event.headers['webhook-timestamp']),
        'webhook-signature': String(event.headers['webhook-signature']),
      }),
    ).toThrow();
  });

  it('retries after a 500, a time-out and a dropped connection, with the same webhook-id', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    endpoint.enqueue(500, 'hang', 'destroy');
    await clientWrites(wa, 'retry me');
    // This test's channel only: an earlier test's event whose answer came too late (a loaded
    // machine) is sent again, as it must be, and may arrive now.
    const ofThisChannel = () =>
      endpoint.events('message.received').filter((e) => e.body.channel_id === wa.id);
    // Each failure schedules a retry after a backoff of seconds: the clock moves past it.
    await eventually(async () => {
      clock.advance(60_000);
      expect(ofThisChannel().length).toBeGreaterThanOrEqual(4);
    }, 20_000);
    const attempts = ofThisChannel();
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    // The sender records the delivery after the endpoint's answer: it may lag the receipt.
    await eventually(async () => {
      const rows: { delivered_at: Date | null; attempts: number }[] = await t.app
        .get(DataSource)
        .query('SELECT delivered_at, attempts FROM agent_events WHERE organization_id = $1', [org]);
      expect(rows).toEqual([{ delivered_at: expect.any(Date), attempts: 4 }]);
    });
  });

  it('tells delivery.updated on a status and channel.deactivated when Meta rejects the token', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    const once = { frequency: 'once', client_phone_numbers: ['+34612345678'] };
    const followUp = await givenFollowUp(t, auth, wa.id, once);
    const [message] = await graph.waitForMessages(1);
    await eventually(async () => {
      const res = await t
        .http()
        .get(`/v1/scheduler/follow-up/whatsapp/${followUp.id}/deliveries`)
        .set(auth);
      expect(res.body.data.items[0].status).toBe('sent');
    });
    await givenWhatsappNotification(t, wa, META_SECRET, {
      statuses: [aWhatsappStatus(message.wamid, 'delivered')],
    });
    // Not ordered: the worker's own outcome (sent) and Meta's status (delivered), one event each.
    const [sentEvent, updated] = await eventually(async () => {
      const events = endpoint.events('delivery.updated').filter((e) => e.body.channel_id === wa.id);
      const byStatus = (status: string) =>
        events.filter((e) => (e.body.data as { status: string }).status === status);
      expect([byStatus('sent').length, byStatus('delivered').length]).toEqual([1, 1]);
      return [byStatus('sent')[0], byStatus('delivered')[0]];
    });
    expect(sentEvent.body).toMatchObject({ data: { wa_message_id: message.wamid } });
    expect(updated.body).toMatchObject({
      organization_id: org,
      channel_id: wa.id,
      data: { follow_up_id: followUp.id, status: 'delivered', wa_message_id: message.wamid },
    });

    graph.enqueue(graphErrorReply(401, 190, 'Error validating access token'));
    await givenFollowUp(t, auth, wa.id, once);
    const [deactivated] = await eventually(async () => {
      const events = endpoint
        .events('channel.deactivated')
        .filter((e) => e.body.channel_id === wa.id);
      expect(events).toHaveLength(1);
      return events;
    });
    expect(deactivated.body).toMatchObject({
      agent_id: 'agent-1',
      channel_id: wa.id,
      data: { id: wa.id, status: 'inactive', status_reason: { code: '190' } },
    });
  });

  it('stores nothing when events are off', async () => {
    const quiet = await startApp({ META_APP_SECRET: META_SECRET });
    try {
      const wa = await givenWhatsappChannel(quiet, auth);
      await givenInboundMessage(quiet, wa, META_SECRET, { id: 'wamid.quiet', body: 'hi' });
      await eventually(async () => {
        const res = await quiet.http().get(`/v1/channels/whatsapp/${wa.id}/messages`).set(auth);
        expect(res.body.data.total_count).toBe(1);
      });
      const rows: unknown[] = await quiet.app
        .get(DataSource)
        .query('SELECT 1 FROM agent_events WHERE organization_id = $1', [org]);
      expect(rows).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
