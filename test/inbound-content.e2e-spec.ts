import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { FakeAgentEndpoint } from './support/fake-agent-endpoint';
import { givenWhatsappChannel, WhatsappChannel } from './support/given';
import * as meta from './support/meta-payloads';
import { forWhatsappNumber, postToWebhook } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

/*
 * Everything a WhatsApp client sends reaches the agent: Meta's own example payloads (every
 * message type it documents), signed as Meta signs them, posted to a running agentline, then read
 * back as the agent sees them: the messages list and the `message.received` events.
 */

const META_SECRET = 'meta-app-secret-for-content';
const EVENTS_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const PUBLIC_URL = 'https://agentline.example.com';

interface Item {
  id: string;
  from: string | null;
  from_user_id: string | null;
  profile: { name: string | null; username: string | null } | null;
  message_id: string;
  type: string;
  text: string | null;
  content: Record<string, unknown> | null;
  context: Record<string, unknown> | null;
  referral: Record<string, unknown> | null;
  raw: Record<string, unknown>;
}

describe('Inbound WhatsApp content (e2e)', () => {
  let endpoint: FakeAgentEndpoint;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    endpoint = await FakeAgentEndpoint.start();
    t = await startApp({
      AGENT_EVENTS_URL: endpoint.url,
      AGENT_EVENTS_SECRET: EVENTS_SECRET,
      META_APP_SECRET: META_SECRET,
      PUBLIC_URL,
    });
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
  });
  beforeEach(() => {
    auth = bearer(tokenFor({ org: newOrganization() }));
    endpoint.received.length = 0;
  });

  const post = async (channel: WhatsappChannel, payload: meta.MetaPayload) => {
    const addressed = forWhatsappNumber(payload, channel.number_id);
    await postToWebhook(t, 'whatsapp', channel.id, addressed, META_SECRET).expect(200);
    return addressed;
  };
  const list = async (channel: WhatsappChannel, query = '') =>
    (
      await t
        .http()
        .get(`/v1/channels/whatsapp/${channel.id}/messages${query}`)
        .set(auth)
        .expect(200)
    ).body.data as { items: Item[]; total_count: number };
  /** The one message a posted payload held, once it has been applied. */
  const keptFrom = async (channel: WhatsappChannel, payload: meta.MetaPayload) => {
    const addressed = await post(channel, payload);
    const [entry] = addressed.entry as { changes: { value: { messages: { id: string }[] } }[] }[];
    const id = entry.changes[0].value.messages[0].id;
    return eventually(async () => {
      const item = (await list(channel, '?limit=100')).items.find((i) => i.message_id === id);
      expect(item).toBeDefined();
      return item as Item;
    });
  };

  it('keeps every documented type with its content, and tells the agent the same item', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const voice = await keptFrom(channel, meta.waVoice);
    expect(voice).toMatchObject({
      from: '+16505551234',
      profile: { name: 'Sheena Nelson', username: null },
      type: 'audio',
      text: null,
      content: {
        media_id: '1234567890987654321',
        mime_type: 'audio/ogg; codecs=opus',
        voice: true,
        url: `${PUBLIC_URL}/v1/channels/whatsapp/${channel.id}/media/1234567890987654321`,
      },
    });
    expect((await keptFrom(channel, meta.waDocument)).content).toMatchObject({
      filename: 'filename.pdf',
      caption: 'caption',
      url: `${PUBLIC_URL}/v1/channels/whatsapp/${channel.id}/media/1234567890987654321`,
    });
    expect(await keptFrom(channel, meta.waLocation)).toMatchObject({
      text: 'Facebook HQ',
      content: { latitude: 37.4611978, longitude: -122.2164385, name: 'Facebook HQ' },
    });
    expect(await keptFrom(channel, meta.waButtonReply)).toMatchObject({
      text: 'title',
      content: { reply_type: 'button_reply', reply_id: 'callback_data', title: 'title' },
      context: { message_id: expect.stringMatching(/^wamid\./), from: '+15550783881' },
    });
    expect((await keptFrom(channel, meta.waListReply)).content).toMatchObject({
      reply_type: 'list_reply',
      description: 'description',
    });
    expect((await keptFrom(channel, meta.waFlowReply)).content).toMatchObject({
      reply_type: 'nfm_reply',
      response_json: expect.stringContaining('"flow_token"'),
    });
    expect((await keptFrom(channel, meta.waTemplateQuickReply)).content).toEqual({
      payload: 'callback_data',
      title: 'title',
    });
    expect(await keptFrom(channel, meta.waReaction)).toMatchObject({
      text: '👍',
      content: { emoji: '👍', message_id: expect.stringMatching(/^wamid\./) },
    });
    expect((await keptFrom(channel, meta.waReactionRemoved)).content).toMatchObject({
      emoji: null,
    });
    expect((await keptFrom(channel, meta.waContacts)).content).toMatchObject({
      contacts: [{ name: { formatted_name: 'Barbara J. Johnson' } }],
    });
    expect((await keptFrom(channel, meta.waOrder)).content).toMatchObject({
      catalog_id: '354160437058781',
      product_items: [
        { product_retailer_id: 'HAMBURGER' },
        { product_retailer_id: 'FRENCH_FRIES' },
      ],
    });
    expect((await keptFrom(channel, meta.waEdit)).content).toMatchObject({
      text: 'Updated image caption',
    });
    expect((await keptFrom(channel, meta.waRevoke)).type).toBe('revoke');
    expect((await keptFrom(channel, meta.waCtwaReferral)).referral).toMatchObject({
      source_type: 'ad',
      ctwa_clid: expect.any(String),
    });
    expect((await keptFrom(channel, meta.waTextFrequentlyForwarded)).context).toEqual({
      message_id: null,
      from: null,
      forwarded: true,
      frequently_forwarded: true,
    });
    const unsupported = await keptFrom(channel, meta.waUnsupported);
    expect(unsupported).toMatchObject({ type: 'unsupported', content: null });
    expect(unsupported.raw.errors).toEqual([expect.objectContaining({ code: 131051 })]);

    // The agent hears each one, with the same fields as the list shows.
    const { items } = await list(channel, '?limit=100');
    expect(items).toHaveLength(16);
    const events = await eventually(async () => {
      const received = endpoint.events('message.received');
      expect(received).toHaveLength(16);
      return received;
    });
    const byId = new Map(items.map((item) => [item.id, item]));
    for (const event of events) {
      const data = event.body.data as Item;
      expect(data).toEqual(byId.get(data.id));
    }
  });

  it('keeps a message from a user whose phone Meta withholds, and finds it by user id', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const kept = await keptFrom(channel, meta.waBsuidUsernameNoPhone);
    expect(kept).toMatchObject({
      from: null,
      from_user_id: 'US.13491208655302741918',
      profile: { name: 'Sheena Nelson', username: '@realsheenanelson' },
      text: 'Does it come in another color?',
    });
    expect((await list(channel, '?from=US.13491208655302741918')).items).toEqual([kept]);
    expect((await list(channel, '?from=%2B16505551234')).items).toEqual([]);
  });

  it('opts a client out when they press a template button that says STOP, and back in with START', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const pressed = (text: string, payload: string) => {
      const copy = structuredClone(meta.waTemplateQuickReply);
      const [entry] = copy.entry as { changes: { value: { messages: { button: object }[] } }[] }[];
      entry.changes[0].value.messages[0].button = { text, payload };
      return copy;
    };
    const optOuts = async () =>
      (await t.http().get(`/v1/channels/whatsapp/${channel.id}/opt-outs`).set(auth).expect(200))
        .body.data.items as { phone: string; source: string }[];
    await keptFrom(channel, pressed('Stop promotions', 'STOP'));
    expect(await optOuts()).toEqual([
      expect.objectContaining({ phone: '+16505551234', source: 'keyword' }),
    ]);
    await keptFrom(channel, pressed('Start', 'resume-button'));
    expect(await optOuts()).toEqual([]);
    // A reply button the agent built is an answer, not a keyword.
    await keptFrom(channel, meta.waButtonReply);
    expect(await optOuts()).toEqual([]);
  });

  it("tells the agent and the log about Meta's value-level errors, and keeps the message beside them", async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const kept = await keptFrom(channel, meta.waValueErrors);
    expect(kept.type).toBe('interactive');
    const [event] = await eventually(async () => {
      const received = endpoint.events('channel.error');
      expect(received).toHaveLength(1);
      return received;
    });
    expect(event.body).toEqual({
      type: 'channel.error',
      organization_id: expect.any(String),
      agent_id: channel.agent_id,
      channel_id: channel.id,
      data: {
        channel_id: channel.id,
        field: 'messages',
        errors: [
          {
            code: '131000',
            title: 'Something went wrong',
            message: 'Something went wrong',
            details: 'Unsupported webhook payload',
          },
        ],
      },
    });
  });

  it('sets aside a message nested too deeply to write out, and applies the one beside it', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const payload = forWhatsappNumber(meta.waText, channel.number_id);
    const [entry] = payload.entry as { changes: { value: { messages: unknown[] } }[] }[];
    entry.changes[0].value.messages.push('DEEP');
    // Written out by hand: JSON.stringify itself cannot go 30,000 objects deep.
    const level = '{"type":"edit","edit":{"message":';
    const deep =
      '{"from":"16505551234","id":"wamid.nested","timestamp":"1749416383","type":"edit","edit":{"original_message_id":"wamid.x","message":' +
      level.repeat(15_000) +
      '{"type":"text","text":{"body":"innermost"}}' +
      '}}'.repeat(15_001);
    const raw = JSON.stringify(payload).replace('"DEEP"', deep);
    await postToWebhook(t, 'whatsapp', channel.id, raw, META_SECRET).expect(200);
    const rows = await eventually(async () => {
      const found = (await t.app
        .get(DataSource)
        .query('SELECT item, reason, path FROM webhook_items_set_aside WHERE channel_id = $1', [
          channel.id,
        ])) as { item: string; reason: string; path: string }[];
      expect(found).toHaveLength(1);
      return found;
    });
    expect(rows[0]).toMatchObject({
      item: 'message',
      path: 'entry[0].changes[0].value.messages[1]',
    });
    expect((await list(channel)).items.map((item) => item.type)).toEqual(['text']);
  });

  it('sets aside errors it cannot store, and applies the message beside them', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const payload = structuredClone(meta.waValueErrors);
    const [entry] = payload.entry as { changes: { value: { errors: { title: string }[] } }[] }[];
    entry.changes[0].value.errors[0].title = 'broken \u0000';
    await keptFrom(channel, payload);
    expect(
      await t.app
        .get(DataSource)
        .query('SELECT item, reason FROM webhook_items_set_aside WHERE channel_id = $1', [
          channel.id,
        ]),
    ).toEqual([{ item: 'errors', reason: 'nul' }]);
  });

  it('sets aside a notification field it does not apply, where the operator sees it', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const alert = structuredClone(meta.waText);
    const [entry] = alert.entry as { changes: { field: string }[] }[];
    entry.changes[0].field = 'account_alerts';
    await post(channel, alert);
    const rows = await eventually(async () => {
      const found = (await t.app
        .get(DataSource)
        .query('SELECT item, reason, detail FROM webhook_items_set_aside WHERE channel_id = $1', [
          channel.id,
        ])) as { item: string; reason: string; detail: string }[];
      expect(found).toHaveLength(1);
      return found;
    });
    expect(rows).toEqual([
      {
        item: 'change',
        reason: 'unsupported_field',
        detail: 'agentline does not apply "account_alerts" notifications',
      },
    ]);
  });
});
