import type { ParsedNotification } from '../../webhooks/inbound-notification';
import { parseMessangerNotification } from '../messanger/messanger-notification.parser';
import { parseWhatsappNotification } from '../whatsapp/whatsapp-notification.parser';
import { LATEST_INSTANT_MS } from './meta-notification.reader';

const events = (parsed: ParsedNotification) => parsed.read.map((item) => item.event);
/** What was set aside, as `path: reason`. */
const setAside = (parsed: ParsedNotification) =>
  parsed.setAside.map((item) => `${item.path}: ${item.reason}`);

const whatsapp = (value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: 'waba',
      changes: [{ field: 'messages', value: { metadata: { phone_number_id: '111' }, ...value } }],
    },
  ],
});
const message = (type: string, content: Record<string, unknown>) => ({
  from: '34612345678',
  id: `wamid.${type}`,
  timestamp: '1763802000',
  type,
  ...content,
});

describe('parseWhatsappNotification', () => {
  it('reads every message type: its text, caption, title, emoji or place, else null', () => {
    const parsed = parseWhatsappNotification(
      whatsapp({
        messages: [
          message('text', { text: { body: 'hi' } }),
          message('document', { document: { id: 'm', caption: 'invoice' } }),
          message('audio', { audio: { id: 'm' } }),
          message('interactive', {
            interactive: { type: 'list_reply', list_reply: { id: 'x', title: 'Tuesday' } },
          }),
          message('button', { button: { payload: 'p', text: 'Stop promotions' } }),
          message('reaction', { reaction: { message_id: 'w', emoji: '❤️' } }),
          message('location', { location: { latitude: 1, longitude: 2, address: 'Main St 1' } }),
          message('contacts', { contacts: [{ name: { formatted_name: 'Ana' } }] }),
        ],
      }),
    );
    expect(parsed.setAside).toEqual([]);
    expect(events(parsed).map((e) => (e.kind === 'message' ? [e.type, e.text] : e.kind))).toEqual([
      ['text', 'hi'],
      ['document', 'invoice'],
      ['audio', null],
      ['interactive', 'Tuesday'],
      ['button', 'Stop promotions'],
      ['reaction', '❤️'],
      ['location', 'Main St 1'],
      ['contacts', null],
    ]);
    expect(parsed.read[0].path).toBe('entry[0].changes[0].value.messages[0]');
    expect(events(parsed)[0]).toEqual({
      kind: 'message',
      account: '111',
      sender: '+34612345678',
      senderUserId: null,
      profile: null,
      messageId: 'wamid.text',
      type: 'text',
      text: 'hi',
      content: null,
      context: null,
      referral: null,
      raw: message('text', { text: { body: 'hi' } }),
      opensWindow: true,
      keywords: ['hi'],
      at: 1763802000000,
    });
  });

  it('reads statuses, failed ones with Meta’s first error, and skips the ones about nothing sent', () => {
    const parsed = parseWhatsappNotification(
      whatsapp({
        statuses: [
          { id: 'wamid.1', status: 'delivered', timestamp: '1763802001' },
          {
            id: 'wamid.2',
            status: 'failed',
            timestamp: '1763802002',
            errors: [{ code: 131047, title: 'Re-engagement message' }],
          },
          { id: 'wamid.3', status: 'deleted', timestamp: '1763802003' },
        ],
      }),
    );
    expect(events(parsed)).toEqual([
      {
        kind: 'status',
        account: '111',
        status: 'delivered',
        at: 1763802001000,
        messages: { ids: ['wamid.1'] },
      },
      {
        kind: 'status',
        account: '111',
        status: 'failed',
        at: 1763802002000,
        messages: { ids: ['wamid.2'] },
        error: { code: '131047', title: 'Re-engagement message' },
      },
    ]);
  });

  it('names what it cannot read, and keeps what it can', () => {
    expect(parseWhatsappNotification({ object: 'page', entry: [] }).unreadable).toBe(
      'not a WhatsApp Business Account notification',
    );
    const parsed = parseWhatsappNotification(
      whatsapp({
        messages: [{ id: 'x' }, message('text', { text: { body: 'ok' } })],
        statuses: [{ id: 'y' }],
      }),
    );
    expect(events(parsed)).toHaveLength(1);
    expect(parsed.setAside).toEqual([
      {
        path: 'entry[0].changes[0].value.messages[0]',
        item: 'message',
        content: { id: 'x' },
        reason: 'invalid_field',
        detail: 'needs from (a phone number) or from_user_id',
      },
      {
        path: 'entry[0].changes[0].value.statuses[0]',
        item: 'status',
        content: { id: 'y' },
        reason: 'invalid_field',
        detail: 'needs status',
      },
    ]);
  });

  it('judges each item on its own: NUL, unpaired surrogates, instants beyond Date, ids of another type', () => {
    const good = message('text', { text: { body: 'fine' } });
    const parsed = parseWhatsappNotification(
      whatsapp({
        messages: [
          message('text', { id: 'wamid.nul', text: { body: 'a\u0000b' } }),
          good,
          message('text', { id: 'wamid.lone', text: { body: 'x\ud800' } }),
          message('text', { id: 'wamid.far', timestamp: '1e20' }),
          message('text', { id: 'wamid.neg', timestamp: '-5' }),
          message('text', { id: 'wamid.nan', timestamp: 'soon' }),
          message('text', { id: 42 }),
          message('text', { id: 'w'.repeat(257) }),
          // Anywhere in the item, not only in what agentline reads today.
          message('text', { id: 'wamid.ctx', context: { from: '\u0000' } }),
        ],
        statuses: [
          { id: 'wamid.s1', status: 'read', timestamp: '1e20' },
          { id: 'wamid.s2', status: 'delivered', timestamp: String(LATEST_INSTANT_MS / 1000) },
          { id: 'wamid.s3', status: 'deleted', timestamp: 'never' },
        ],
      }),
    );
    expect(
      events(parsed).map((e) =>
        e.kind === 'message' ? e.messageId : e.kind === 'status' ? e.messages : e.kind,
      ),
    ).toEqual(['wamid.text', { ids: ['wamid.s2'] }]);
    const statuses = 'entry[0].changes[0].value.statuses';
    const messages = 'entry[0].changes[0].value.messages';
    expect(setAside(parsed)).toEqual([
      `${messages}[0]: nul`,
      `${messages}[2]: lone_surrogate`,
      `${messages}[3]: timestamp_out_of_range`,
      `${messages}[4]: timestamp_out_of_range`,
      `${messages}[5]: invalid_field`,
      `${messages}[6]: invalid_field`,
      `${messages}[7]: too_long`,
      `${messages}[8]: nul`,
      `${statuses}[0]: timestamp_out_of_range`,
    ]);
    expect(parsed.setAside.map((item) => item.detail)).toEqual([
      'text.body must not contain NUL characters (\\u0000)',
      'text.body must not contain unpaired UTF-16 surrogates (such as \\ud800)',
      'timestamp 1e20 is not an instant between 1970 and 9999',
      'timestamp -5 is not an instant between 1970 and 9999',
      'needs timestamp, Unix seconds',
      'needs id, a non-empty string',
      'id is longer than 256 characters',
      'context.from must not contain NUL characters (\\u0000)',
      'timestamp 1e20 is not an instant between 1970 and 9999',
    ]);
  });

  it('sets aside a change whose phone number id cannot be read, or that has no value', () => {
    const parsed = parseWhatsappNotification({
      object: 'whatsapp_business_account',
      entry: [
        {
          changes: [
            { field: 'messages', value: { metadata: { phone_number_id: { id: 1 } } } },
            { field: 'messages' },
            {
              field: 'messages',
              value: { metadata: { phone_number_id: 111 }, messages: [message('text', {})] },
            },
          ],
        },
      ],
    });
    expect(setAside(parsed)).toEqual([
      'entry[0].changes[0]: invalid_field',
      'entry[0].changes[1]: invalid_field',
    ]);
    expect(events(parsed).map((e) => e.account)).toEqual(['111']);
  });
});

describe('parseMessangerNotification', () => {
  const page = (messaging: Record<string, unknown>[]) => ({
    object: 'page',
    entry: [
      {
        id: '222',
        time: 1,
        messaging: messaging.map((m) => ({
          sender: { id: '9' },
          recipient: { id: '222' },
          timestamp: 1763802000000,
          ...m,
        })),
      },
    ],
  });

  it('reads messages and attachments, skips echoes, reads deliveries by mids and reads by watermark', () => {
    const parsed = parseMessangerNotification(
      page([
        { message: { mid: 'm1', text: 'hello' } },
        { message: { mid: 'm2', attachments: [{ type: 'audio', payload: {} }] } },
        { message: { mid: 'm3', text: 'our reply', is_echo: true } },
        { delivery: { mids: ['m_out'], watermark: 1763801999000 } },
        { read: { watermark: 1763801999500 } },
      ]),
    );
    expect(parsed.setAside).toEqual([]);
    expect(events(parsed)).toEqual([
      expect.objectContaining({
        kind: 'message',
        account: '222',
        sender: '9',
        messageId: 'm1',
        type: 'text',
        text: 'hello',
        at: 1763802000000,
      }),
      expect.objectContaining({
        kind: 'message',
        account: '222',
        sender: '9',
        messageId: 'm2',
        type: 'audio',
        text: null,
        at: 1763802000000,
      }),
      {
        kind: 'status',
        account: '222',
        status: 'delivered',
        at: 1763802000000,
        messages: { ids: ['m_out'] },
      },
      {
        kind: 'status',
        account: '222',
        status: 'delivered',
        at: 1763802000000,
        messages: { recipient: '9', watermark: 1763801999000 },
      },
      {
        kind: 'status',
        account: '222',
        status: 'read',
        at: 1763802000000,
        messages: { recipient: '9', watermark: 1763801999500 },
      },
    ]);
  });

  it('names an event without sender or timestamp', () => {
    expect(
      parseMessangerNotification({
        object: 'page',
        entry: [
          { messaging: [{ message: { mid: 'x' } }, { read: { watermark: 1 } }, 'an event?'] },
        ],
      }).setAside.map((item) => `${item.path}: ${item.item} ${item.reason}`),
    ).toEqual([
      'entry[0].messaging[0]: message invalid_field',
      'entry[0].messaging[1]: status invalid_field',
      'entry[0].messaging[2]: event invalid_field',
    ]);
  });

  it('applies a delivery without timestamp by its watermark, as Meta documents it', () => {
    const parsed = parseMessangerNotification({
      object: 'page',
      entry: [
        {
          id: '222',
          time: 1763802000000,
          messaging: [
            {
              sender: { id: '9' },
              recipient: { id: '222' },
              delivery: {
                mids: ['mid.1458668856218:ed81099e15d3f4f233'],
                watermark: 1458668856253,
              },
            },
          ],
        },
      ],
    });
    expect(events(parsed)).toEqual([
      {
        kind: 'status',
        account: '222',
        status: 'delivered',
        at: 1458668856253,
        messages: { ids: ['mid.1458668856218:ed81099e15d3f4f233'] },
      },
      {
        kind: 'status',
        account: '222',
        status: 'delivered',
        at: 1458668856253,
        messages: { recipient: '9', watermark: 1458668856253 },
      },
    ]);
  });

  it('judges each event on its own', () => {
    const parsed = parseMessangerNotification(
      page([
        { message: { mid: 'm_nul', text: 'a\u0000' } },
        { message: { mid: 'm_ok', text: 'fine' } },
        { message: { mid: 'm_lone', text: '\udc00' } },
        { timestamp: 1e20, message: { mid: 'm_far', text: 'far' } },
        { read: { watermark: 1e20 } },
        { delivery: { watermark: 'yesterday' } },
        { sender: { id: 9 }, message: { mid: 'm_id' } },
        { message: { mid: 'm_echo', text: '\u0000', is_echo: true } },
        { postback: { title: '\u0000' } },
      ]),
    );
    expect(
      events(parsed).map((e) =>
        e.kind === 'message' ? e.messageId : e.kind === 'status' ? e.status : e.kind,
      ),
    ).toEqual(['m_ok']);
    expect(parsed.setAside.map((item) => `${item.path}: ${item.item} ${item.reason}`)).toEqual([
      'entry[0].messaging[0]: message nul',
      'entry[0].messaging[2]: message lone_surrogate',
      'entry[0].messaging[3]: message timestamp_out_of_range',
      'entry[0].messaging[4]: status timestamp_out_of_range',
      'entry[0].messaging[5]: status invalid_field',
      'entry[0].messaging[6]: message invalid_field',
      'entry[0].messaging[8]: message nul',
    ]);
  });
});
