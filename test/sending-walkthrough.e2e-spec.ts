import { eventually } from './support/eventually';
import { aFollowUp } from './support/factories';
import { FakeGraphApi } from './support/fake-graph-api';
import { metaTemplates } from './support/fake-graph-templates';
import {
  givenFollowUp,
  givenInboundMessage,
  givenMessangerChannel,
  givenMessangerNotification,
  givenWhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import { SPRING_SALE_SEND, SPRING_SALE_SENT_TO_ANA } from './support/meta-templates';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'meta-app-secret-walkthrough';
const WABA = '104996279238475';

/**
 * Issue 20's "done means", tried as a new user tries it, one step after the other through the
 * API alone: a channel with its business account lists its approved templates; a weekly
 * follow-up sends a template with an image header, named variables and a URL button in Meta's
 * shape; a language the template does not have is a clear 422; a product photo with a caption
 * and two reply buttons goes out; the client's message is marked read with the typing indicator;
 * a Messenger reply carries quick replies.
 */
describe('Everything an agent can say, tried as a new user (e2e)', () => {
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
    auth = bearer(tokenFor({ org: newOrganization() }));
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  it('connects, lists templates, schedules, refuses, sends rich, reads, and replies on Messenger', async () => {
    // 1. A channel with its business account: its approved templates are listed once synced.
    graph.templates.set(WABA, metaTemplates());
    const wa = await givenWhatsappChannel(t, auth, { business_account_id: WABA });
    const approved = await eventually(async () => {
      const res = await t
        .http()
        .get(`/v1/channels/whatsapp/${wa.id}/templates?status=APPROVED`)
        .set(auth)
        .expect(200);
      expect(res.body.data.total_count).toBeGreaterThan(0);
      return res.body.data.items as { name: string; language: string; status: string }[];
    });
    const expected = metaTemplates().filter((template) => template.status === 'APPROVED');
    expect(approved.map(({ name, language }) => `${name}/${language}`).sort()).toEqual(
      expected.map(({ name, language }) => `${name}/${language}`).sort(),
    );

    // 2. A weekly follow-up of spring_sale: Meta's exact template body goes out, filled.
    const followUp = await givenFollowUp(t, auth, wa.id, {
      frequency: 'weekly',
      title: 'Ana',
      description: '20% off every plant',
      client_phone_numbers: ['+34612345678'],
      template: SPRING_SALE_SEND,
    });
    clock.set(followUp.next_run_at);
    const [scheduled] = await graph.waitForMessages(1);
    expect(scheduled.payload).toEqual(SPRING_SALE_SENT_TO_ANA);

    // 3. The same template in a language the account does not have: a clear 422, nothing queued.
    const refused = await t
      .http()
      .post('/v1/scheduler/follow-up/whatsapp')
      .set(auth)
      .send(
        aFollowUp(wa.id, {
          frequency: 'weekly',
          description: '20% off every plant',
          client_phone_numbers: ['+34612345678'],
          template: { ...SPRING_SALE_SEND, language: 'fr' },
        }),
      )
      .expect(422);
    expect(refused.body).toMatchObject({ code: 'template_invalid' });
    expect(refused.body.detail).toContain('en_US');

    // 4. The client writes; a product photo with a caption and two reply buttons goes back.
    const inbound = await givenInboundMessage(t, wa, SECRET, {
      body: 'Do you have it in blue?',
      at: clock.now(),
    });
    await eventually(async () => {
      const res = await t.http().get(`/v1/channels/whatsapp/${wa.id}/messages`).set(auth);
      expect(res.body.data.total_count).toBe(1);
    });
    const interactive = {
      type: 'button',
      header: { type: 'image', image: { link: 'https://shop.example.com/blue-pot.jpg' } },
      body: { text: 'The blue pot, 24 cm, in stock.' },
      action: {
        buttons: [
          { type: 'reply', reply: { id: 'buy_blue', title: 'Buy it' } },
          { type: 'reply', reply: { id: 'more_colours', title: 'Other colours' } },
        ],
      },
    };
    await t
      .http()
      .post(`/v1/channels/whatsapp/${wa.id}/messages`)
      .set(auth)
      .send({ to: '+34612345678', interactive, reply_to: inbound.id })
      .expect(202);
    const [, photo] = await graph.waitForMessages(2);
    expect(photo.payload).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '34612345678',
      context: { message_id: inbound.id },
      type: 'interactive',
      interactive,
    });

    // 5. The client's message marked read, with the typing indicator.
    await t
      .http()
      .post(`/v1/channels/whatsapp/${wa.id}/messages/${encodeURIComponent(inbound.id)}/read`)
      .set(auth)
      .send({ typing: true })
      .expect(204);
    expect(graph.actions.readReceipts.map((receipt) => receipt.payload)).toEqual([
      {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: inbound.id,
        typing_indicator: { type: 'text' },
      },
    ]);

    // 6. A Messenger reply with quick replies, inside the window the person opened.
    const page = await givenMessangerChannel(t, auth);
    const psid = '6543210987654321';
    await givenMessangerNotification(t, page, SECRET, psid, [
      { timestamp: clock.now(), message: { mid: 'm_walkthrough', text: 'Hi!' } },
    ]);
    await eventually(async () => {
      const res = await t.http().get(`/v1/channels/messanger/${page.id}/messages`).set(auth);
      expect(res.body.data.total_count).toBe(1);
    });
    const quickReplies = [
      { content_type: 'text', title: 'Blue', payload: 'COLOUR_BLUE' },
      { content_type: 'text', title: 'Green', payload: 'COLOUR_GREEN' },
    ];
    await t
      .http()
      .post(`/v1/channels/messanger/${page.id}/messages`)
      .set(auth)
      .send({ to: psid, text: 'Which colour?', quick_replies: quickReplies })
      .expect(202);
    const [, , reply] = await graph.waitForMessages(3);
    expect(reply.payload).toEqual({
      recipient: { id: psid },
      messaging_type: 'RESPONSE',
      message: { text: 'Which colour?', quick_replies: quickReplies },
    });
  });
});
