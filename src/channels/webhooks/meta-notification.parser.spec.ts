import { parseMessangerNotification, parseWhatsappNotification } from './meta-notification.parser';

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
    expect(parsed.problems).toEqual([]);
    expect(parsed.events.map((e) => (e.kind === 'message' ? [e.type, e.text] : e.kind))).toEqual([
      ['text', 'hi'],
      ['document', 'invoice'],
      ['audio', null],
      ['interactive', 'Tuesday'],
      ['button', 'Stop promotions'],
      ['reaction', '❤️'],
      ['location', 'Main St 1'],
      ['contacts', null],
    ]);
    expect(parsed.events[0]).toEqual({
      kind: 'message',
      account: '111',
      sender: '+34612345678',
      messageId: 'wamid.text',
      type: 'text',
      text: 'hi',
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
    expect(parsed.events).toEqual([
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
    expect(parseWhatsappNotification({ object: 'page', entry: [] }).problems).toEqual([
      'not a WhatsApp Business Account notification',
    ]);
    const parsed = parseWhatsappNotification(
      whatsapp({
        messages: [{ id: 'x' }, message('text', { text: { body: 'ok' } })],
        statuses: [{ id: 'y' }],
      }),
    );
    expect(parsed.events).toHaveLength(1);
    expect(parsed.problems).toEqual([
      'entry[0].changes[0].value.messages[0]: needs from, id, type and timestamp',
      'entry[0].changes[0].value.statuses[0]: needs id, status and timestamp',
    ]);
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
    expect(parsed.problems).toEqual([]);
    expect(parsed.events).toEqual([
      {
        kind: 'message',
        account: '222',
        sender: '9',
        messageId: 'm1',
        type: 'text',
        text: 'hello',
        at: 1763802000000,
      },
      {
        kind: 'message',
        account: '222',
        sender: '9',
        messageId: 'm2',
        type: 'audio',
        text: null,
        at: 1763802000000,
      },
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
        entry: [{ messaging: [{ message: { mid: 'x' } }] }],
      }).problems,
    ).toEqual(['entry[0].messaging[0]: needs sender.id and timestamp']);
  });
});
