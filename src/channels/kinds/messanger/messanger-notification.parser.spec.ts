import * as meta from '../../../../test/support/meta-payloads';
import type { InboundMessage, ParsedNotification } from '../../webhooks/inbound-notification';
import { parseMessangerNotification } from './messanger-notification.parser';

const events = (parsed: ParsedNotification) => parsed.read.map((item) => item.event);
const setAside = (parsed: ParsedNotification) =>
  parsed.setAside.map((item) => `${item.path}: ${item.item} ${item.reason}`);
/** The one inbound message a fixture holds. */
function messageOf(payload: meta.MetaPayload): InboundMessage {
  const parsed = parseMessangerNotification(payload);
  expect(parsed.setAside).toEqual([]);
  expect(parsed.read).toHaveLength(1);
  const [event] = events(parsed);
  if (event.kind !== 'message') throw new Error(`expected a message, got ${event.kind}`);
  return event;
}
const item = (payload: meta.MetaPayload) =>
  ((payload.entry as { messaging: unknown[] }[])[0].messaging as unknown[])[0];

const PAGE = '682498302938465';
const PSID = '1254459154682919';
const attachment = (type: string, url: string, extra: Record<string, unknown> = {}) => ({
  type,
  url,
  title: null,
  sticker_id: null,
  coordinates: null,
  ...extra,
});

describe('parseMessangerNotification with Meta documented payloads', () => {
  it('judges an unknown event kind whose name holds a NUL before quoting it', () => {
    const payload = structuredClone(meta.msText);
    const [entry] = payload.entry as { messaging: Record<string, unknown>[] }[];
    entry.messaging[0] = {
      sender: { id: PSID },
      recipient: { id: PAGE },
      timestamp: 1,
      'bad\u0000kind': {},
    };
    expect(setAside(parseMessangerNotification(payload))).toEqual([
      'entry[0].messaging[0]: event nul',
    ]);
  });

  it('reads a text message: no content, its text a keyword, opens the window', () => {
    expect(messageOf(meta.msText)).toEqual({
      kind: 'message',
      account: PAGE,
      sender: PSID,
      senderUserId: null,
      profile: null,
      messageId: 'mid.1457764197618:41d102a3e1ae206a38',
      type: 'text',
      text: 'hello, world!',
      content: null,
      context: null,
      referral: null,
      raw: item(meta.msText),
      opensWindow: true,
      keywords: ['hello, world!'],
      at: 1458692752478,
    });
  });

  it('reads a quick reply as type quick_reply with its payload; its text and payload are keywords', () => {
    expect(messageOf(meta.msQuickReply)).toMatchObject({
      type: 'quick_reply',
      text: 'hello, world!',
      content: { payload: 'DEVELOPER_DEFINED_PAYLOAD' },
      opensWindow: true,
      keywords: ['hello, world!', 'DEVELOPER_DEFINED_PAYLOAD'],
    });
  });

  it('reads reply_to into context', () => {
    expect(messageOf(meta.msReplyTo)).toMatchObject({
      type: 'text',
      text: 'hello, world!',
      context: {
        message_id: 'm_1fTq8oLumEyIp3Q2MR-aY7IfLZDamVrALniheU',
        from: null,
        forwarded: false,
        frequently_forwarded: false,
      },
    });
  });

  it.each([
    ['image', meta.msImage, 'https://scontent.xx.fbcdn.net/v/t1.15752-9/image-attachment'],
    ['video', meta.msVideo, 'https://scontent.xx.fbcdn.net/v/t1.15752-9/video-attachment'],
    ['audio', meta.msAudio, 'https://scontent.xx.fbcdn.net/v/t1.15752-9/audio-attachment'],
    ['file', meta.msFile, 'https://scontent.xx.fbcdn.net/v/t1.15752-9/file-attachment'],
  ])('reads an %s attachment with its URL as Meta gives it', (type, payload, url) => {
    expect(messageOf(payload)).toMatchObject({
      messageId: 'mid.$cAAJdkrCd2ORnva8ErFhjGm0X_Q_c',
      type,
      text: null,
      content: { attachments: [attachment(type, url)] },
      opensWindow: true,
      keywords: [],
      at: 1518479195308,
    });
  });

  it('reads a sticker: both attachments of the transition, the type the first one', () => {
    const url = 'https://scontent.xx.fbcdn.net/v/t39.1997-6/sticker.png';
    expect(messageOf(meta.msSticker)).toMatchObject({
      type: 'sticker',
      text: null,
      content: {
        attachments: [
          attachment('sticker', url, { sticker_id: '369239263222822' }),
          attachment('image', url, { sticker_id: '369239263222822' }),
        ],
      },
    });
  });

  it('reads fallback and location attachments of the older shapes', () => {
    const parsed = parseMessangerNotification({
      object: 'page',
      entry: [
        {
          id: PAGE,
          messaging: [
            {
              sender: { id: PSID },
              recipient: { id: PAGE },
              timestamp: 1518479195308,
              message: {
                mid: 'm_fallback',
                attachments: [
                  {
                    type: 'fallback',
                    title: 'A shared link',
                    url: 'https://l.facebook.com/x',
                    payload: null,
                  },
                ],
              },
            },
            {
              sender: { id: PSID },
              recipient: { id: PAGE },
              timestamp: 1518479195309,
              message: {
                mid: 'm_location',
                attachments: [
                  {
                    type: 'location',
                    title: 'Pinned location',
                    payload: { coordinates: { lat: 40.4168, long: -3.7038 } },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(events(parsed)).toEqual([
      expect.objectContaining({
        type: 'fallback',
        text: 'A shared link',
        content: {
          attachments: [
            attachment('fallback', 'https://l.facebook.com/x', { title: 'A shared link' }),
          ],
        },
      }),
      expect.objectContaining({
        type: 'location',
        text: 'Pinned location',
        content: {
          attachments: [
            {
              type: 'location',
              url: null,
              title: 'Pinned location',
              sticker_id: null,
              coordinates: { lat: 40.4168, long: -3.7038 },
            },
          ],
        },
      }),
    ]);
  });

  it('reads a postback: type postback, text its title, its title and payload keywords, opens the window', () => {
    expect(messageOf(meta.msPostback)).toMatchObject({
      sender: PSID,
      messageId: 'm_MESSAGE-ID',
      type: 'postback',
      text: 'Postback Button',
      content: { title: 'Postback Button', payload: 'DEVELOPER_DEFINED_PAYLOAD' },
      referral: null,
      opensWindow: true,
      keywords: ['Postback Button', 'DEVELOPER_DEFINED_PAYLOAD'],
      at: 1458692752478,
    });
  });

  it("reads Meta's Get Started example: a user_ref sender, a timestamp in seconds as a string, its referral", () => {
    expect(messageOf(meta.msGetStartedPostback)).toMatchObject({
      account: PAGE,
      sender: null,
      senderUserId: 'USER-REF-ID',
      messageId: 'm_MESSAGE-ID',
      type: 'postback',
      text: 'TITLE-FOR-THE-CTA',
      content: { title: 'TITLE-FOR-THE-CTA', payload: 'USER-DEFINED-PAYLOAD' },
      referral: { ref: 'USER-DEFINED-REFERRAL-PARAM', source: 'SHORT-URL', type: 'OPEN_THREAD' },
      opensWindow: true,
      at: 1527459824000,
    });
  });

  it('gives a postback without mid a stable id: the same event resent has the same one', () => {
    const withoutMid = (title: string) => {
      const payload = structuredClone(meta.msPostback);
      const event = item(payload) as { postback: Record<string, unknown> };
      delete event.postback.mid;
      event.postback.title = title;
      return payload;
    };
    const first = messageOf(withoutMid('Postback Button')).messageId;
    expect(first).toMatch(/^postback:[\w-]{32}$/);
    expect(messageOf(withoutMid('Postback Button')).messageId).toBe(first);
    expect(messageOf(withoutMid('Another button')).messageId).not.toBe(first);
  });

  it('reads a reaction and its removal: distinct ids, the emoji, the message reacted to', () => {
    const react = messageOf(meta.msReaction);
    expect(react).toMatchObject({
      type: 'reaction',
      text: '❤️',
      content: { emoji: '❤️', action: 'react', message_id: 'm_1457764197618:41d102a3e1ae206a38' },
      opensWindow: true,
      keywords: [],
      at: 1458668856463,
    });
    const unreact = messageOf(meta.msUnreaction);
    expect(unreact).toMatchObject({
      type: 'reaction',
      text: null,
      content: {
        emoji: '❤️',
        action: 'unreact',
        message_id: 'm_1457764197618:41d102a3e1ae206a38',
      },
      opensWindow: false,
    });
    expect(react.messageId).toMatch(/^reaction:/);
    expect(unreact.messageId).not.toBe(react.messageId);
    expect(messageOf(structuredClone(meta.msReaction)).messageId).toBe(react.messageId);
  });

  it('keeps a referral into an existing thread as type referral, which opens the window', () => {
    expect(messageOf(meta.msReferral)).toMatchObject({
      type: 'referral',
      text: null,
      content: null,
      referral: { ref: 'my_ref_data', source: 'SHORTLINK', type: 'OPEN_THREAD' },
      opensWindow: true,
      keywords: [],
    });
    const ad = messageOf(meta.msReferralAd);
    expect(ad.referral).toMatchObject({ ad_id: '6045246247433', source: 'ADS' });
    expect(ad.messageId).toMatch(/^referral:/);
    expect(ad.messageId).not.toBe(messageOf(meta.msReferral).messageId);
  });

  it("reads Meta's delivery without timestamp: its mids, and every message up to its watermark", () => {
    const parsed = parseMessangerNotification(meta.msDelivery);
    expect(parsed.setAside).toEqual([]);
    expect(events(parsed)).toEqual([
      {
        kind: 'status',
        account: PAGE,
        status: 'delivered',
        at: 1458668856253,
        messages: { ids: ['mid.1458668856218:ed81099e15d3f4f233'] },
      },
      {
        kind: 'status',
        account: PAGE,
        status: 'delivered',
        at: 1458668856253,
        messages: { recipient: PSID, watermark: 1458668856253 },
      },
    ]);
  });

  it('reads a delivery without mids, and a read, by watermark', () => {
    expect(events(parseMessangerNotification(meta.msDeliveryWithTimestamp))).toEqual([
      {
        kind: 'status',
        account: PAGE,
        status: 'delivered',
        at: 1458668856463,
        messages: { recipient: PSID, watermark: 1458668856253 },
      },
    ]);
    expect(events(parseMessangerNotification(meta.msRead))).toEqual([
      {
        kind: 'status',
        account: PAGE,
        status: 'read',
        at: 1458668856463,
        messages: { recipient: PSID, watermark: 1458668856253 },
      },
    ]);
  });

  it('ignores echoes, in messaging and in standby', () => {
    for (const payload of [meta.msEcho, meta.msStandbyEcho]) {
      expect(parseMessangerNotification(payload)).toEqual({ read: [], setAside: [] });
    }
  });

  it('sets aside a standby client message (another app owns the thread) and unknown event kinds', () => {
    const standby = structuredClone(meta.msStandbyEcho);
    const entry = (standby.entry as { standby: Record<string, unknown>[] }[])[0];
    entry.standby = [item(meta.msText) as Record<string, unknown>];
    const optin = structuredClone(meta.msText);
    (optin.entry as { messaging: unknown[] }[])[0].messaging = [
      {
        sender: { id: PSID },
        recipient: { id: PAGE },
        timestamp: 1458692752478,
        optin: { type: 'notification_messages', payload: 'X' },
      },
      { sender: { id: PSID }, recipient: { id: PAGE }, timestamp: 1458692752478 },
    ];
    const parsedStandby = parseMessangerNotification(standby);
    expect(parsedStandby.read).toEqual([]);
    expect(setAside(parsedStandby)).toEqual(['entry[0].standby[0]: event unsupported_field']);
    const parsedOptin = parseMessangerNotification(optin);
    expect(parsedOptin.read).toEqual([]);
    expect(parsedOptin.setAside.map((i) => `${i.path}: ${i.item} ${i.reason} ${i.detail}`)).toEqual(
      [
        'entry[0].messaging[0]: event unsupported_field agentline does not apply "optin" events',
        'entry[0].messaging[1]: event invalid_field has no event (message, postback, delivery, read, ...)',
      ],
    );
  });

  it('judges postbacks, reactions and referrals like messages', () => {
    const bad = (event: Record<string, unknown>) => ({
      object: 'page',
      entry: [
        { id: PAGE, messaging: [{ sender: { id: PSID }, recipient: { id: PAGE }, ...event }] },
      ],
    });
    expect(
      [
        { timestamp: 1, postback: { title: 'a\u0000' } },
        { timestamp: 1e20, reaction: { action: 'react', mid: 'm' } },
        { referral: { ref: 'x' } },
        { timestamp: 1, postback: 'Get Started' },
        { timestamp: 1, postback: { mid: 7, title: 'x' } },
      ].map((event) => setAside(parseMessangerNotification(bad(event)))[0]),
    ).toEqual([
      'entry[0].messaging[0]: message nul',
      'entry[0].messaging[0]: message timestamp_out_of_range',
      'entry[0].messaging[0]: message invalid_field',
      'entry[0].messaging[0]: message invalid_field',
      'entry[0].messaging[0]: message invalid_field',
    ]);
  });
});
