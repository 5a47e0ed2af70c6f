import { DataSource } from 'typeorm';
import { agentEventProblems } from './support/agent-event-schemas';
import { eventually } from './support/eventually';
import { FakeGraphApi } from './support/fake-graph-api';
import { givenMessangerChannel, MessangerChannel } from './support/given';
import { ManualClock } from './support/manual-clock';
import * as meta from './support/meta-payloads';
import { postToWebhook } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'meta-app-secret-messanger';
/** The page and the person of Meta's Messenger examples. */
const META_PAGE = '682498302938465';
const PSID = '1254459154682919';
const MINUTE = 60_000;

type Event = Record<string, unknown>;

/**
 * One of Meta's documented notifications, sent to this test's page instead of Meta's example page
 * (a page id belongs to one channel), with the fields a test needs changed on its one event.
 */
function onPage(
  payload: meta.MetaPayload,
  pageId: string,
  change: (event: Event) => void = () => undefined,
): meta.MetaPayload {
  const copy = structuredClone(payload);
  for (const entry of copy.entry as Event[]) {
    entry.id = pageId;
    for (const event of [
      ...((entry.messaging as Event[] | undefined) ?? []),
      ...((entry.standby as Event[] | undefined) ?? []),
    ]) {
      for (const side of ['sender', 'recipient'] as const) {
        const party = event[side] as { id?: string };
        if (party.id === META_PAGE) party.id = pageId;
      }
      change(event);
    }
  }
  return copy;
}

interface Item {
  from: string | null;
  from_user_id: string | null;
  message_id: string;
  type: string;
  text: string | null;
  content: unknown;
  context: unknown;
  referral: unknown;
  raw: unknown;
  received_at: number;
}

interface Delivery {
  status: string;
  wa_message_id: string | null;
  sent_at: number | null;
  delivered_at: number | null;
  read_at: number | null;
}

/**
 * Messenger in full (issue 19): Meta's documented notifications, signed as Meta signs them, posted
 * to a running agentline; what the agent can list and what it is told.
 */
describe('Messenger webhooks in full (e2e)', () => {
  let graph: FakeGraphApi;
  let clock: ManualClock;
  let t: TestApp;
  let auth: Record<string, string>;
  let org: string;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    clock = new ManualClock(Date.UTC(2026, 10, 26, 5, 0));
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        GRAPH_API_TIMEOUT_MS: '5000',
        META_APP_SECRET: SECRET,
        // Events are read from their outbox here: nobody listens at this address.
        AGENT_EVENTS_URL: 'http://127.0.0.1:9/agent/events',
        AGENT_EVENTS_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });
  beforeEach(() => {
    graph.reset();
    org = newOrganization();
    auth = bearer(tokenFor({ org }));
  });

  const db = () => t.app.get(DataSource);
  // Every agent event a test made (read from the outbox: nobody listens) is as openapi.json says.
  afterEach(async () => {
    const rows = (await db().query(`SELECT payload FROM agent_events WHERE organization_id = $1`, [
      org,
    ])) as { payload: unknown }[];
    expect(rows.flatMap((row) => agentEventProblems(row.payload))).toEqual([]);
  });
  const channel = () => givenMessangerChannel(t, auth);
  /** Posted as Meta posts it: signed, answered 200, then processed. */
  const notify = async (fb: MessangerChannel, payload: meta.MetaPayload) => {
    await postToWebhook(t, 'messanger', fb.id, payload, SECRET).expect(200);
    await eventually(async () => {
      const pending = (await db().query(
        `SELECT count(*)::int AS n FROM webhook_inbox WHERE channel_id = $1 AND processed_at IS NULL`,
        [fb.id],
      )) as { n: number }[];
      expect(pending[0].n).toBe(0);
    });
  };
  const messages = async (fb: MessangerChannel): Promise<Item[]> =>
    (await t.http().get(`/v1/channels/messanger/${fb.id}/messages`).set(auth).expect(200)).body.data
      .items;
  const received = async (fb: MessangerChannel): Promise<Event[]> =>
    (
      (await db().query(
        `SELECT payload FROM agent_events WHERE organization_id = $1 AND type = 'message.received'
          ORDER BY created_at, id`,
        [org],
      )) as { payload: Event }[]
    )
      .map((row) => row.payload)
      .filter((payload) => payload.channel_id === fb.id);
  const setAside = async (fb: MessangerChannel) =>
    (await db().query(
      'SELECT path, item, reason, detail FROM webhook_items_set_aside WHERE channel_id = $1 ORDER BY path',
      [fb.id],
    )) as { path: string; item: string; reason: string; detail: string }[];
  const send = (fb: MessangerChannel, to: string, text: string) =>
    t.http().post(`/v1/channels/messanger/${fb.id}/messages`).set(auth).send({ to, text });
  const deliveries = async (fb: MessangerChannel): Promise<Delivery[]> =>
    (await t.http().get(`/v1/channels/messanger/${fb.id}/deliveries`).set(auth).expect(200)).body
      .data.items;
  /** A text from PSID a minute ago, which opens the window. */
  const clientWrites = (fb: MessangerChannel, mid = `m_${clock.now()}_${Math.random()}`) =>
    notify(
      fb,
      onPage(meta.msText, fb.user_id, (event) => {
        event.timestamp = clock.now() - MINUTE;
        (event.message as Event).mid = mid;
      }),
    );
  /** A message sent now to PSID, once its send's answer is written: its delivery. */
  const sentNow = async (fb: MessangerChannel, text: string) => {
    await send(fb, PSID, text).expect(202);
    return eventually(async () => {
      const [delivery] = await deliveries(fb);
      expect(delivery.status).toBe('sent');
      return delivery;
    });
  };

  const attachment = (type: string, url: string, extra: Event = {}) => ({
    type,
    url,
    title: null,
    sticker_id: null,
    coordinates: null,
    ...extra,
  });
  const CDN = 'https://scontent.xx.fbcdn.net/v/t1.15752-9';
  const STICKER = 'https://scontent.xx.fbcdn.net/v/t39.1997-6/sticker.png';

  it.each<[string, meta.MetaPayload, Partial<Item>]>([
    ['text', meta.msText, { type: 'text', text: 'hello, world!', content: null }],
    [
      'quick reply',
      meta.msQuickReply,
      {
        type: 'quick_reply',
        text: 'hello, world!',
        content: { payload: 'DEVELOPER_DEFINED_PAYLOAD' },
      },
    ],
    [
      'reply',
      meta.msReplyTo,
      {
        type: 'text',
        text: 'hello, world!',
        context: {
          message_id: 'm_1fTq8oLumEyIp3Q2MR-aY7IfLZDamVrALniheU',
          from: null,
          forwarded: false,
          frequently_forwarded: false,
        },
      },
    ],
    [
      'image',
      meta.msImage,
      {
        type: 'image',
        text: null,
        content: { attachments: [attachment('image', `${CDN}/image-attachment`)] },
      },
    ],
    [
      'video',
      meta.msVideo,
      {
        type: 'video',
        text: null,
        content: { attachments: [attachment('video', `${CDN}/video-attachment`)] },
      },
    ],
    [
      'audio',
      meta.msAudio,
      {
        type: 'audio',
        text: null,
        content: { attachments: [attachment('audio', `${CDN}/audio-attachment`)] },
      },
    ],
    [
      'file',
      meta.msFile,
      {
        type: 'file',
        text: null,
        content: { attachments: [attachment('file', `${CDN}/file-attachment`)] },
      },
    ],
    [
      'sticker',
      meta.msSticker,
      {
        type: 'sticker',
        text: null,
        content: {
          attachments: [
            attachment('sticker', STICKER, { sticker_id: '369239263222822' }),
            attachment('image', STICKER, { sticker_id: '369239263222822' }),
          ],
        },
      },
    ],
    [
      'postback',
      meta.msPostback,
      {
        message_id: 'm_MESSAGE-ID',
        type: 'postback',
        text: 'Postback Button',
        content: { title: 'Postback Button', payload: 'DEVELOPER_DEFINED_PAYLOAD' },
        referral: null,
      },
    ],
    [
      'Get Started (user_ref, seconds as a string)',
      meta.msGetStartedPostback,
      {
        from: null,
        from_user_id: 'USER-REF-ID',
        message_id: 'm_MESSAGE-ID',
        type: 'postback',
        text: 'TITLE-FOR-THE-CTA',
        content: { title: 'TITLE-FOR-THE-CTA', payload: 'USER-DEFINED-PAYLOAD' },
        referral: {
          ref: 'USER-DEFINED-REFERRAL-PARAM',
          source: 'SHORT-URL',
          type: 'OPEN_THREAD',
        },
        received_at: 1527459824000,
      },
    ],
    [
      'reaction',
      meta.msReaction,
      {
        type: 'reaction',
        text: '❤️',
        content: { emoji: '❤️', action: 'react', message_id: 'm_1457764197618:41d102a3e1ae206a38' },
      },
    ],
    [
      'reaction removed',
      meta.msUnreaction,
      {
        type: 'reaction',
        text: null,
        content: {
          emoji: '❤️',
          action: 'unreact',
          message_id: 'm_1457764197618:41d102a3e1ae206a38',
        },
      },
    ],
    [
      'referral (m.me link)',
      meta.msReferral,
      {
        type: 'referral',
        text: null,
        content: null,
        referral: { ref: 'my_ref_data', source: 'SHORTLINK', type: 'OPEN_THREAD' },
      },
    ],
    [
      'referral (ad)',
      meta.msReferralAd,
      {
        type: 'referral',
        text: null,
        content: null,
        referral: expect.objectContaining({ ad_id: '6045246247433', source: 'ADS' }),
      },
    ],
  ])('keeps a %s with its content, and tells the agent', async (_name, payload, expected) => {
    const fb = await channel();
    const body = onPage(payload, fb.user_id);
    await notify(fb, body);
    const [event] = (body.entry as Event[])[0].messaging as Event[];
    const items = await messages(fb);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      from: PSID,
      from_user_id: null,
      context: null,
      referral: null,
      raw: event,
      received_at: event.timestamp,
      ...expected,
    });
    expect(await setAside(fb)).toEqual([]);
    const told = await received(fb);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ type: 'message.received', data: items[0] });
  });

  it('lets the agent answer a person who pressed Get Started: send now 202, the Send API call', async () => {
    const fb = await channel();
    const refused = await send(fb, PSID, 'Welcome!').expect(422);
    expect(refused.body.code).toBe('outside_messaging_window');
    await notify(
      fb,
      onPage(meta.msPostback, fb.user_id, (event) => (event.timestamp = clock.now() - MINUTE)),
    );
    const res = await send(fb, PSID, 'Welcome! How can I help?').expect(202);
    expect(res.body.data).toMatchObject({ channel_id: fb.id, phone: PSID, follow_up_id: null });
    const [call] = await graph.waitForMessages(1);
    expect(call).toMatchObject({
      numberId: fb.user_id,
      to: PSID,
      body: 'Welcome! How can I help?',
      messagingType: 'RESPONSE',
    });
  });

  it('opens the window with a reaction, not with its removal', async () => {
    const unreacted = await channel();
    await notify(
      unreacted,
      onPage(meta.msUnreaction, unreacted.user_id, (e) => (e.timestamp = clock.now() - MINUTE)),
    );
    expect((await send(unreacted, PSID, 'Hi').expect(422)).body.code).toBe(
      'outside_messaging_window',
    );
    const reacted = await channel();
    await notify(
      reacted,
      onPage(meta.msReaction, reacted.user_id, (e) => (e.timestamp = clock.now() - MINUTE)),
    );
    await send(reacted, PSID, 'Glad you liked it').expect(202);
  });

  it('keeps a reaction and its removal as two items, each once however often Meta resends', async () => {
    const fb = await channel();
    for (const [payload, time] of [
      [meta.msReaction, 1],
      [meta.msUnreaction, 1],
      [meta.msReaction, 2],
      [meta.msUnreaction, 2],
    ] as const) {
      const copy = onPage(payload, fb.user_id);
      (copy.entry as Event[])[0].time = time;
      await notify(fb, copy);
    }
    const items = await messages(fb);
    expect(items.map((item) => (item.content as { action: string }).action).sort()).toEqual([
      'react',
      'unreact',
    ]);
    expect(await received(fb)).toHaveLength(2);
  });

  it('keeps a resent postback, referral and postback without mid once', async () => {
    const fb = await channel();
    const withoutMid = onPage(meta.msPostback, fb.user_id, (event) => {
      delete (event.postback as Event).mid;
      event.timestamp = 1458692752999;
    });
    // Resent in another batch: the same events, other bytes (the inbox keeps identical bytes once).
    const batch = (payload: meta.MetaPayload, time: number) => {
      const copy = structuredClone(payload);
      (copy.entry as Event[])[0].time = time;
      return copy;
    };
    for (const time of [1518479195594, 1518479199999]) {
      await notify(fb, batch(onPage(meta.msPostback, fb.user_id), time));
      await notify(fb, batch(onPage(meta.msReferral, fb.user_id), time));
      await notify(fb, batch(withoutMid, time));
    }
    const items = await messages(fb);
    expect(items.map((item) => item.message_id).sort()).toEqual([
      'm_MESSAGE-ID',
      expect.stringMatching(/^postback:/),
      expect.stringMatching(/^referral:/),
    ]);
    expect(await received(fb)).toHaveLength(3);
  });

  it("moves a delivery to delivered by Meta's delivery without timestamp (its mids), and by watermark alone", async () => {
    const fb = await channel();
    await clientWrites(fb);
    const first = await sentNow(fb, 'Your order shipped.');
    // Meta's example as documented: no timestamp; its mids name our message.
    await notify(
      fb,
      onPage(meta.msDelivery, fb.user_id, (event) => {
        (event.delivery as Event).mids = [first.wa_message_id];
      }),
    );
    const [delivered] = await deliveries(fb);
    expect(delivered).toMatchObject({ status: 'delivered', delivered_at: 1458668856253 });
    // Mids "may not be present": the watermark alone says every message up to it.
    clock.advance(MINUTE);
    await send(fb, PSID, 'It arrives tomorrow.').expect(202);
    const second = await eventually(async () => {
      const sent = (await deliveries(fb)).find((d) => d.status === 'sent');
      expect(sent).toBeDefined();
      return sent as Delivery;
    });
    await notify(
      fb,
      onPage(meta.msDelivery, fb.user_id, (event) => {
        delete (event.delivery as Event).mids;
        (event.delivery as Event).watermark = second.sent_at;
      }),
    );
    expect((await deliveries(fb)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
  });

  it('marks read every message up to a read watermark, and none sent after it', async () => {
    const fb = await channel();
    await clientWrites(fb);
    const first = await sentNow(fb, 'First');
    clock.advance(MINUTE);
    await notify(
      fb,
      onPage(meta.msRead, fb.user_id, (event) => {
        event.timestamp = clock.now();
        (event.read as Event).watermark = first.sent_at;
      }),
    );
    await send(fb, PSID, 'Second').expect(202);
    await eventually(async () =>
      expect((await deliveries(fb)).map((d) => d.status)).toEqual(['sent', 'read']),
    );
    expect((await deliveries(fb))[1]).toMatchObject({
      read_at: clock.now(),
      delivered_at: clock.now(),
    });
  });

  it('covers a message by a watermark of the time Meta dated it, during the send call', async () => {
    const fb = await channel();
    await clientWrites(fb);
    // Meta dates the message while agentline waits for the Send API's answer.
    let datedByMeta = 0;
    graph.respondWith(() => {
      clock.advance(500);
      datedByMeta = clock.now();
      clock.advance(500);
      return undefined;
    });
    const sent = await sentNow(fb, 'Your table is booked.');
    expect(sent.sent_at).toBe(datedByMeta - 500);
    await notify(
      fb,
      onPage(meta.msDeliveryWithTimestamp, fb.user_id, (event) => {
        event.timestamp = clock.now();
        (event.delivery as Event).watermark = datedByMeta;
      }),
    );
    expect((await deliveries(fb))[0]).toMatchObject({
      status: 'delivered',
      delivered_at: clock.now(),
    });
  });

  it("applies a read whose watermark arrives before its send's answer is written", async () => {
    const fb = await channel();
    await clientWrites(fb);
    // The Send API takes its time to answer; Meta has the message, and the person reads it.
    graph.enqueue({
      status: 200,
      body: { recipient_id: PSID, message_id: 'm_read_before_answer' },
      delayMs: 1500,
    });
    await send(fb, PSID, 'Quick question').expect(202);
    await graph.waitForMessages(1);
    await notify(
      fb,
      onPage(meta.msRead, fb.user_id, (event) => {
        event.timestamp = clock.now();
        (event.read as Event).watermark = clock.now();
      }),
    );
    expect((await deliveries(fb))[0].status).toBe('sending');
    await eventually(async () =>
      expect((await deliveries(fb))[0]).toMatchObject({
        status: 'read',
        wa_message_id: 'm_read_before_answer',
      }),
    );
  });

  it('ignores echoes, in messaging and in standby; sets aside what arrives in standby and unknown events', async () => {
    const fb = await channel();
    await notify(fb, onPage(meta.msEcho, fb.user_id));
    await notify(fb, onPage(meta.msStandbyEcho, fb.user_id));
    expect(await setAside(fb)).toEqual([]);
    const standby = onPage(meta.msText, fb.user_id);
    const entry = (standby.entry as Event[])[0];
    entry.standby = entry.messaging;
    delete entry.messaging;
    await notify(fb, standby);
    await notify(
      fb,
      onPage(meta.msText, fb.user_id, (event) => {
        delete event.message;
        event.optin = { type: 'notification_messages', payload: 'NEWS' };
      }),
    );
    expect(await messages(fb)).toEqual([]);
    expect(await received(fb)).toEqual([]);
    expect(await setAside(fb)).toEqual([
      {
        path: 'entry[0].messaging[0]',
        item: 'event',
        reason: 'unsupported_field',
        detail: 'agentline does not apply "optin" events',
      },
      {
        path: 'entry[0].standby[0]',
        item: 'event',
        reason: 'unsupported_field',
        detail: expect.stringContaining('another app owns this thread'),
      },
    ]);
  });

  it("opts out by a quick reply's payload", async () => {
    const fb = await channel();
    await notify(
      fb,
      onPage(meta.msQuickReply, fb.user_id, (event) => {
        event.timestamp = clock.now() - MINUTE;
        (event.message as Event).text = 'No more messages';
        ((event.message as Event).quick_reply as Event).payload = 'STOP';
      }),
    );
    const res = await send(fb, PSID, 'One more thing').expect(202);
    expect(res.body.data).toMatchObject({ status: 'skipped', last_error: { code: 'opted_out' } });
  });
});
