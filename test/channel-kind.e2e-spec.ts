import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { aFollowUp } from './support/factories';
import { FakeSmsApi } from './support/sms-kind/fake-sms-api';
import { SmsKindModule } from './support/sms-kind/sms-kind.module';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

/**
 * A third channel kind, SMS, that only this test registers (test/support/sms-kind/): its
 * descriptor, table, transport, webhook parsing and routes are its folder; agentline's services,
 * webhook inbox, scheduler and delivery worker serve it unchanged. docs/channels.md lists the
 * steps it follows.
 */
describe('A channel kind registered by a module of its own (e2e)', () => {
  let sms: FakeSmsApi;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    sms = await FakeSmsApi.start();
    t = await startApp(
      { SCHEDULER_ENABLED: 'true', SCHEDULER_TICK_MS: '50', SMS_API_URL: sms.url },
      { modules: [SmsKindModule] },
    );
  });
  afterAll(async () => {
    await t?.close();
    await sms?.close();
  });
  beforeEach(() => {
    auth = bearer(tokenFor({ org: newOrganization(), sub: 'sam' }));
  });

  const smsChannel = async (senderNumber: string, accessToken = 'sms-token-1') =>
    (
      await t
        .http()
        .post('/v1/channels/sms')
        .set(auth)
        .send({ agent_id: 'agent-1', sender_number: senderNumber, access_token: accessToken })
        .expect(201)
    ).body.data;
  const deliveries = async (channelId: string) =>
    (await t.http().get(`/v1/channels/sms/${channelId}/deliveries`).set(auth).expect(200)).body.data
      .items;

  it('stores the channel in its own table, with its webhook URL, and keeps its sender number to one channel', async () => {
    const channel = await smsChannel('+15550001001');
    expect(channel).toMatchObject({
      type: 'Sms',
      sender_number: '+15550001001',
      status: 'active',
      webhook_url: `http://localhost:3000/v1/webhooks/sms/${channel.id}`,
    });
    const again = await t
      .http()
      .post('/v1/channels/sms')
      .set(bearer(tokenFor({ org: newOrganization(), sub: 'eve' })))
      .send({ agent_id: 'agent-2', sender_number: '+15550001001', access_token: 'x' })
      .expect(409);
    expect(again.body.detail).toBe(
      'sender_number +15550001001 is already bound to a channel; it can be bound again once that channel is removed.',
    );
  });

  it('sends a follow-up through its own provider and lists the deliveries', async () => {
    const channel = await smsChannel('+15550001002', 'sms-token-2');
    const followUp = await t
      .http()
      .post('/v1/scheduler/follow-up/sms')
      .set(auth)
      .send(
        aFollowUp(channel.id, {
          frequency: 'once',
          client_phone_numbers: ['+34612345678', '+14155552671'],
          prompt: 'Your order {{title}} ships today.',
          title: 'A-42',
        }),
      )
      .expect(201);
    expect(followUp.body.data).toMatchObject({ channel_type: 'Sms', status: 'active' });

    const sent = await eventually(async () => {
      const mine = sms.sent.filter((s) => s.from === '+15550001002');
      expect(mine).toHaveLength(2);
      return mine;
    });
    expect(sent.map((s) => [s.to, s.text, s.token]).sort()).toEqual([
      ['+14155552671', 'Your order A-42 ships today.', 'sms-token-2'],
      ['+34612345678', 'Your order A-42 ships today.', 'sms-token-2'],
    ]);
    const rows = await eventually(async () => {
      const items = await deliveries(channel.id);
      expect(items.map((d: { status: string }) => d.status)).toEqual(['sent', 'sent']);
      return items;
    });
    expect(rows.map((d: { wa_message_id: string }) => d.wa_message_id).sort()).toEqual(
      sent.map((s) => s.id).sort(),
    );
  });

  it('refuses a follow-up template on a kind without templates (SMS has no messaging window)', async () => {
    const channel = await smsChannel('+15550001006');
    const templated = await t
      .http()
      .post('/v1/scheduler/follow-up/sms')
      .set(auth)
      .send(aFollowUp(channel.id, { template: { name: 'n', language: 'en', parameters: [] } }))
      .expect(400);
    expect(templated.body.errors).toEqual([
      { field: 'template', message: 'SMS channels send no templates' },
    ]);
  });

  it('receives a webhook: the inbound message reaches the conversation, a status reaches its delivery', async () => {
    const channel = await smsChannel('+15550001003', 'sms-token-3');
    const queued = await t
      .http()
      .post(`/v1/channels/sms/${channel.id}/messages`)
      .set(auth)
      .send({ to: '+34 612 345 678', text: 'Hello from SMS' })
      .expect(202);
    expect(queued.body.data).toMatchObject({ phone: '+34612345678', status: 'pending' });
    const sentId = await eventually(async () => {
      const [delivery] = await deliveries(channel.id);
      expect(delivery.status).toBe('sent');
      return delivery.wa_message_id as string;
    });

    const notification = {
      account: '+15550001003',
      events: [
        {
          type: 'message',
          id: 'sms-in-1',
          from: '+34612345678',
          text: 'Thanks!',
          sent_at: 1_763_800_000,
        },
        { type: 'status', message_id: sentId, status: 'delivered', at: 1_763_800_100 },
        { type: 'unknown' },
      ],
    };
    await t
      .http()
      .post(`/v1/webhooks/sms/${channel.id}`)
      .set('x-sms-token', 'wrong')
      .set('content-type', 'application/json')
      .send(JSON.stringify(notification))
      .expect(403);
    await t
      .http()
      .post(`/v1/webhooks/sms/${channel.id}`)
      .set('x-sms-token', channel.verification_token)
      .set('content-type', 'application/json')
      .send(JSON.stringify(notification))
      .expect(200);

    await eventually(async () => {
      const inbound = await t
        .http()
        .get(`/v1/channels/sms/${channel.id}/messages`)
        .set(auth)
        .expect(200);
      expect(inbound.body.data.items).toEqual([{ sender: '+34612345678', text: 'Thanks!' }]);
      const [delivery] = await deliveries(channel.id);
      expect(delivery).toMatchObject({ status: 'delivered', delivered_at: 1_763_800_100_000 });
    });
  });

  it("deactivates the channel when its provider refuses the token, as Meta's kinds do", async () => {
    const channel = await smsChannel('+15550001004', 'revoked');
    await t
      .http()
      .post(`/v1/channels/sms/${channel.id}/messages`)
      .set(auth)
      .send({ to: '+34612345678', text: 'Hello' })
      .expect(202);
    const [delivery] = await eventually(async () => {
      const items = await deliveries(channel.id);
      expect(items[0].status).toBe('failed');
      return items;
    });
    expect(delivery.last_error).toEqual({ code: 'sms_401', message: 'bad token' });
    const again = await t
      .http()
      .post(`/v1/channels/sms/${channel.id}/messages`)
      .set(auth)
      .send({ to: '+34612345678', text: 'Hello' })
      .expect(422);
    expect(again.body.detail).toBe(
      `Channel ${channel.id} is inactive; update its access_token to reactivate it.`,
    );
  });

  it('fails only the deliveries of a kind this process does not run, and sends the rest of the batch', async () => {
    const channel = await smsChannel('+15550001007', 'sms-token-7');
    // A row a rolled-back deployment (or another test's kind) left behind, due with this send.
    const ghost = randomUUID();
    await t.app.get(DataSource).query(
      `INSERT INTO deliveries (id, organization_id, channel_id, channel_kind, occurrence_at, phone,
                                 status, attempts, next_attempt_at, message_text, created_at,
                                 updated_at)
         SELECT $1, organization_id, $2, 'ghost', now(), '+34600000000', 'pending', 0, now(),
                'hi', now(), now()
           FROM sms_channels WHERE id = $3`,
      [ghost, randomUUID(), channel.id],
    );
    await t
      .http()
      .post(`/v1/channels/sms/${channel.id}/messages`)
      .set(auth)
      .send({ to: '+34612345678', text: 'Still sent' })
      .expect(202);
    await eventually(async () => {
      const [delivery] = await deliveries(channel.id);
      expect(delivery.status).toBe('sent');
      const [row] = (await t.app
        .get(DataSource)
        .query('SELECT status, last_error_code FROM deliveries WHERE id = $1', [ghost])) as {
        status: string;
        last_error_code: string;
      }[];
      expect(row).toEqual({ status: 'failed', last_error_code: 'channel_inactive' });
    });
  });

  it("answers 404 for another organization's channel and for a channel of another kind", async () => {
    const channel = await smsChannel('+15550001005');
    const other = bearer(tokenFor({ org: newOrganization(), sub: 'mallory' }));
    const foreign = await t
      .http()
      .get(`/v1/channels/sms/${channel.id}/deliveries`)
      .set(other)
      .expect(404);
    expect(foreign.body.detail).toBe('SMS channel was not found.');
    await t.http().get(`/v1/channels/whatsapp/${channel.id}`).set(auth).expect(404);
  });
});
