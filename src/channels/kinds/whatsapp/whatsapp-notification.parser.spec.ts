import * as meta from '../../../../test/support/meta-payloads';
import type { InboundMessage, ParsedNotification } from '../../webhooks/inbound-notification';
import { parseWhatsappNotification } from './whatsapp-notification.parser';

/* Every message type Meta documents, read from Meta's own example payloads (meta-payloads.md). */

const QUOTED = 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=';

function onlyMessage(parsed: ParsedNotification): InboundMessage {
  expect(parsed.setAside).toEqual([]);
  expect(parsed.read).toHaveLength(1);
  const [{ event }] = parsed.read;
  if (event.kind !== 'message') throw new Error(`expected a message, read ${event.kind}`);
  return event;
}

const read = (payload: meta.MetaPayload) => onlyMessage(parseWhatsappNotification(payload));

/** The first message element of a payload, as Meta sent it. */
function element(payload: meta.MetaPayload): unknown {
  const [entry] = payload.entry as { changes: { value: { messages: unknown[] } }[] }[];
  return entry.changes[0].value.messages[0];
}

describe('parseWhatsappNotification: content by type', () => {
  const media = (fields: Record<string, unknown>) => ({
    media_id: '1234567890987654321',
    filename: null,
    caption: null,
    voice: null,
    animated: null,
    url: null,
    ...fields,
  });

  it.each([
    [
      'image',
      meta.waImage,
      'This is a caption',
      media({
        media_id: '2754859441498128',
        mime_type: 'image/jpeg',
        sha256: '81d3bd8a8db4868c9520ed47186e8b7c5789e61ff79f7f834be6950b808a90d3',
        caption: 'This is a caption',
      }),
    ],
    [
      'video',
      meta.waVideo,
      'caption',
      media({
        media_id: '765756756',
        mime_type: 'video/mp4',
        sha256: 'Jh+2ij6PzUv/J2y+grrtegr/ZMzRxkEPwc24Oyib4s03w9Jc=',
        caption: 'caption',
      }),
    ],
    [
      'audio',
      meta.waAudio,
      null,
      media({
        mime_type: 'audio/ogg; codecs=opus',
        sha256: 'E3dxS/PdYZE7ppA3pQ4mpCFaXBJ8pX4SRN/dsfvds/iPGA=',
        voice: false,
      }),
    ],
    [
      'audio',
      meta.waVoice,
      null,
      media({
        mime_type: 'audio/ogg; codecs=opus',
        sha256: 'm04pFf2ERdaopTyFkGPA0+bX3i+YY2dYgVFwOgDLSDI=',
        voice: true,
      }),
    ],
    [
      'document',
      meta.waDocument,
      'caption',
      media({
        mime_type: 'application/pdf',
        sha256: 'grwfwe/ZPx0wAbdfbdeFUNItPZ0RylL8gGUvdt3YFqc18SY=',
        filename: 'filename.pdf',
        caption: 'caption',
      }),
    ],
    [
      'sticker',
      meta.waStickerAnimated,
      null,
      media({
        mime_type: 'image/webp',
        sha256: 'HcwyCKrTKXHk0a00ms4HWIA76GY0Du6q4Z/iuwevw=',
        animated: true,
      }),
    ],
    [
      'location',
      meta.waLocation,
      'Facebook HQ',
      {
        latitude: 37.4611978,
        longitude: -122.2164385,
        name: 'Facebook HQ',
        address: '1 Hacker Way, Menlo Park, CA 94025',
        url: 'https://maps.google.com/?cid=2000000000000000000',
      },
    ],
    [
      'interactive',
      meta.waButtonReply,
      'title',
      {
        reply_type: 'button_reply',
        reply_id: 'callback_data',
        title: 'title',
        description: null,
        response_json: null,
      },
    ],
    [
      'interactive',
      meta.waListReply,
      'title',
      {
        reply_type: 'list_reply',
        reply_id: 'callback_data',
        title: 'title',
        description: 'description',
        response_json: null,
      },
    ],
    [
      'interactive',
      meta.waFlowReply,
      'Sent',
      {
        reply_type: 'nfm_reply',
        reply_id: null,
        title: 'flow',
        description: 'Sent',
        response_json:
          '{"comment_text":"Comment Text","delivery_rating":"4","flow_token":"AQAAAAACS5FpgQ_cAAAAAD0QI3s.","purchase_rating":"2","recommend_radio":"0","cs_rating":"0"}',
      },
    ],
    ['button', meta.waTemplateQuickReply, 'title', { payload: 'callback_data', title: 'title' }],
    ['reaction', meta.waReaction, '👍', { emoji: '👍', message_id: QUOTED }],
    ['reaction', meta.waReactionRemoved, null, { emoji: null, message_id: QUOTED }],
    ['reaction', meta.waReactionRemovedEmptyEmoji, null, { emoji: null, message_id: QUOTED }],
    [
      'order',
      meta.waOrder,
      null,
      {
        catalog_id: '354160437058781',
        product_items: [
          { product_retailer_id: 'HAMBURGER', quantity: 3, item_price: 30, currency: 'ILS' },
          { product_retailer_id: 'FRENCH_FRIES', quantity: 2, item_price: 35, currency: 'ILS' },
        ],
      },
    ],
    [
      'system',
      meta.waSystemChangedNumber,
      'User Sheena Nelson changed from 16505551234 to 12195555358',
      {
        type: 'user_changed_number',
        body: 'User Sheena Nelson changed from 16505551234 to 12195555358',
        wa_id: '+12195555358',
        user_id: 'US.24817305912873645029',
      },
    ],
    [
      'edit',
      meta.waEdit,
      'Updated image caption',
      { original_message_id: QUOTED, text: 'Updated image caption' },
    ],
    ['revoke', meta.waRevoke, null, { original_message_id: QUOTED }],
    ['unsupported', meta.waUnsupported, null, null],
  ])('%s (%#): text and content', (type, payload, text, content) => {
    const message = read(payload);
    expect(message.type).toBe(type);
    expect(message.text).toBe(text);
    expect(message.content).toEqual(content);
    expect(message.raw).toEqual(element(payload));
  });

  it("keeps a contact card's contacts as Meta sends them", () => {
    const message = read(meta.waContacts);
    expect(message.type).toBe('contacts');
    expect(message.content).toEqual({
      contacts: (element(meta.waContacts) as { contacts: unknown[] }).contacts,
    });
    expect((message.content?.contacts as { name: unknown }[])[0].name).toMatchObject({
      formatted_name: 'Barbara J. Johnson',
    });
  });

  it('reads the sender, the profile, and the text of a plain message', () => {
    expect(read(meta.waText)).toMatchObject({
      account: '106540352242922',
      sender: '+16505551234',
      senderUserId: null,
      profile: { name: 'Sheena Nelson', username: null },
      type: 'text',
      content: null,
      context: null,
      referral: null,
      opensWindow: true,
      at: 1749416383000,
    });
  });

  it('reads the quoted, forwarded and frequently forwarded context', () => {
    expect(read(meta.waTextReply).context).toEqual({
      message_id: QUOTED,
      from: '+15550783881',
      forwarded: false,
      frequently_forwarded: false,
    });
    expect(read(meta.waTextForwarded).context).toEqual({
      message_id: null,
      from: null,
      forwarded: true,
      frequently_forwarded: false,
    });
    expect(read(meta.waTextFrequentlyForwarded).context).toEqual({
      message_id: null,
      from: null,
      forwarded: true,
      frequently_forwarded: true,
    });
  });

  it("keeps a click-to-WhatsApp ad's referral as Meta sends it", () => {
    const message = read(meta.waCtwaReferral);
    expect(message.referral).toEqual(
      (element(meta.waCtwaReferral) as { referral: unknown }).referral,
    );
    expect(message.referral).toMatchObject({ source_type: 'ad', ctwa_clid: expect.any(String) });
  });

  it('reads a user known only by a business-scoped user id: no phone, the username kept', () => {
    expect(read(meta.waBsuidUsernameNoPhone)).toMatchObject({
      sender: null,
      senderUserId: 'US.13491208655302741918',
      profile: { name: 'Sheena Nelson', username: '@realsheenanelson' },
      text: 'Does it come in another color?',
      opensWindow: true,
    });
    expect(read(meta.waBsuidWithPhone)).toMatchObject({
      sender: '+16505551234',
      senderUserId: 'US.13491208655302741918',
    });
  });

  it("names a changed user id's previous id as the sender; Meta's notices do not open the window", () => {
    expect(read(meta.waSystemChangedUserId)).toMatchObject({
      sender: null,
      senderUserId: 'US.13491208655302741918',
      type: 'system',
      content: {
        type: 'user_changed_user_id',
        body: null,
        wa_id: null,
        user_id: 'US.24817305912873645029',
      },
      opensWindow: false,
    });
    expect(read(meta.waSystemChangedNumber).opensWindow).toBe(false);
  });

  it("offers typed text and a template button's payload and title as opt-out words, nothing else", () => {
    expect(read(meta.waText).keywords).toEqual([
      (element(meta.waText) as { text: { body: string } }).text.body,
    ]);
    expect(read(meta.waTemplateQuickReply).keywords).toEqual(['callback_data', 'title']);
    expect(read(meta.waButtonReply).keywords).toEqual([]);
    expect(read(meta.waImage).keywords).toEqual([]);
  });

  it('keeps a type Meta adds later, with no content and its raw element', () => {
    const payload = structuredClone(meta.waText);
    const message = element(payload) as Record<string, unknown>;
    message.type = 'hologram';
    message.hologram = { id: 'h1' };
    delete message.text;
    expect(read(payload)).toMatchObject({
      type: 'hologram',
      text: null,
      content: null,
      raw: message,
    });
  });
});

describe('parseWhatsappNotification: what is not a message', () => {
  it("turns value-level errors into the account's errors, beside the messages", () => {
    const parsed = parseWhatsappNotification(meta.waValueErrors);
    expect(parsed.setAside).toEqual([]);
    expect(parsed.read.map((item) => [item.path, item.item])).toEqual([
      ['entry[0].changes[0].value.messages[0]', 'message'],
      ['entry[0].changes[0].value.errors', 'errors'],
    ]);
    expect(parsed.read[1].event).toEqual({
      kind: 'error',
      account: '106540352242922',
      field: 'messages',
      errors: [
        {
          code: '131000',
          title: 'Something went wrong',
          message: 'Something went wrong',
          details: 'Unsupported webhook payload',
        },
      ],
    });
  });

  it('sets aside a field agentline does not apply, for the operator to see', () => {
    const payload = structuredClone(meta.waText);
    const [entry] = payload.entry as { changes: { field: string }[] }[];
    entry.changes[0].field = 'account_alerts';
    const parsed = parseWhatsappNotification(payload);
    expect(parsed.read).toEqual([]);
    expect(parsed.setAside).toEqual([
      expect.objectContaining({
        path: 'entry[0].changes[0]',
        item: 'change',
        reason: 'unsupported_field',
        detail: 'agentline does not apply "account_alerts" notifications',
      }),
    ]);
  });

  it('reads a status addressed by business-scoped user id only', () => {
    const parsed = parseWhatsappNotification(meta.waStatusDeliveredBsuidNoPhone);
    expect(parsed.setAside).toEqual([]);
    expect(parsed.read.map((item) => item.event)).toEqual([
      expect.objectContaining({
        kind: 'status',
        status: 'delivered',
        messages: { ids: [expect.any(String)] },
      }),
    ]);
  });

  it('drops what it cannot store beside a message, never the message', () => {
    const payload = structuredClone(meta.waBsuidWithPhone);
    const [entry] = payload.entry as {
      changes: { value: { contacts: { profile: Record<string, unknown> }[] } }[];
    }[];
    entry.changes[0].value.contacts[0].profile.name = 'Sheena\u0000';
    const message = element(payload) as Record<string, unknown>;
    message.from_user_id = '';
    expect(read(payload)).toMatchObject({
      sender: '+16505551234',
      senderUserId: null,
      profile: { name: null, username: null },
    });
  });

  it('sets aside errors PostgreSQL could not store, as an errors item', () => {
    const payload = structuredClone(meta.waValueErrors);
    const [entry] = payload.entry as { changes: { value: { errors: { title: string }[] } }[] }[];
    entry.changes[0].value.errors[0].title = 'broken \ud800';
    const parsed = parseWhatsappNotification(payload);
    expect(parsed.read.map((item) => item.item)).toEqual(['message']);
    expect(parsed.setAside).toEqual([
      expect.objectContaining({
        path: 'entry[0].changes[0].value.errors',
        item: 'errors',
        reason: 'lone_surrogate',
      }),
    ]);
  });

  it('reads coordinates sent as strings of digits', () => {
    const payload = structuredClone(meta.waLocation);
    const message = element(payload) as { location: Record<string, unknown> };
    message.location.latitude = '37.5';
    message.location.longitude = 'east';
    expect(read(payload).content).toMatchObject({ latitude: 37.5, longitude: null });
  });

  it('never throws: an edit nested thousands deep is read one level, its sibling kept', () => {
    const payload = structuredClone(meta.waText);
    const [entry] = payload.entry as { changes: { value: { messages: unknown[] } }[] }[];
    let edit: Record<string, unknown> = { type: 'text', text: { body: 'innermost' } };
    for (let depth = 0; depth < 20_000; depth++) {
      edit = { type: 'edit', edit: { original_message_id: 'wamid.x', message: edit } };
    }
    entry.changes[0].value.messages.push({
      from: '16505551234',
      id: 'wamid.nested',
      timestamp: '1749416383',
      ...edit,
    });
    let parsed: ParsedNotification | undefined;
    expect(() => (parsed = parseWhatsappNotification(payload))).not.toThrow();
    expect(parsed?.read[0].event).toMatchObject({ kind: 'message', type: 'text' });
    expect(parsed?.read.length ?? 0).toBeGreaterThanOrEqual(1);
  });

  it('judges a NUL in a field name or an account id before quoting or querying it', () => {
    const field = structuredClone(meta.waText);
    const [fieldEntry] = field.entry as { changes: { field: string }[] }[];
    fieldEntry.changes[0].field = 'account\u0000alerts';
    expect(parseWhatsappNotification(field).setAside).toEqual([
      expect.objectContaining({ item: 'change', reason: 'nul' }),
    ]);
    const account = structuredClone(meta.waText);
    const [accountEntry] = account.entry as {
      changes: { value: { metadata: { phone_number_id: string } } }[];
    }[];
    accountEntry.changes[0].value.metadata.phone_number_id = '1065\u00004';
    expect(parseWhatsappNotification(account).setAside).toEqual([
      expect.objectContaining({ item: 'change', reason: 'nul' }),
    ]);
  });

  it('refuses a sender that is neither a phone nor a user id', () => {
    const payload = structuredClone(meta.waText);
    const message = element(payload) as Record<string, unknown>;
    message.from = 'not a phone';
    expect(parseWhatsappNotification(payload).setAside).toEqual([
      expect.objectContaining({ reason: 'invalid_field', detail: 'from is not a phone number' }),
    ]);
    delete message.from;
    message.from_user_id = 'x'.repeat(300);
    expect(parseWhatsappNotification(payload).setAside).toEqual([
      expect.objectContaining({ reason: 'too_long' }),
    ]);
  });
});
