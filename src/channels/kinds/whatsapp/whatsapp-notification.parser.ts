import { isRecord } from '../../../common/outbound-http';
import type { MessageStatus } from '../../channel-transport';
import type {
  InboundMessage,
  InboundStatus,
  ItemRefusal,
  ParsedNotification,
} from '../../webhooks/inbound-notification';
import {
  isRefusal,
  judge,
  list,
  PHONE,
  readAccount,
  readId,
  readInstant,
  recordAt,
  refuse,
  STATUSES,
  text,
  unacceptable,
} from '../meta/meta-notification.reader';

function whatsappText(message: Record<string, unknown>, type: string): string | null {
  const content = recordAt(message, type);
  switch (type) {
    case 'text':
      return text(content?.body);
    case 'image':
    case 'video':
    case 'document':
    case 'audio':
    case 'sticker':
      return text(content?.caption);
    case 'interactive':
      return (
        text(recordAt(content, 'button_reply')?.title) ??
        text(recordAt(content, 'list_reply')?.title) ??
        text(recordAt(content, 'nfm_reply')?.body)
      );
    case 'button':
      return text(content?.text);
    case 'reaction':
      return text(content?.emoji);
    case 'location':
      return text(content?.name) ?? text(content?.address);
    default:
      return null;
  }
}

function readWhatsappMessage(
  message: unknown,
  account: string | undefined,
): InboundMessage | ItemRefusal {
  if (!isRecord(message)) return refuse('invalid_field', 'is not an object');
  const bad = unacceptable(message);
  if (bad) return bad;
  const from = message.from;
  if (typeof from !== 'string' || !PHONE.test(from)) {
    return refuse('invalid_field', 'needs from, a phone number');
  }
  const id = readId(message.id, 'id');
  if (isRefusal(id)) return id;
  const type = readId(message.type, 'type');
  if (isRefusal(type)) return type;
  const at = readInstant(message.timestamp, 'timestamp', 'seconds');
  if (isRefusal(at)) return at;
  return {
    kind: 'message',
    account,
    sender: from.startsWith('+') ? from : `+${from}`,
    messageId: id,
    type,
    text: whatsappText(message, type),
    at,
  };
}

function readWhatsappStatus(
  status: unknown,
  account: string | undefined,
): InboundStatus | ItemRefusal | undefined {
  if (!isRecord(status)) return refuse('invalid_field', 'is not an object');
  const name = status.status;
  // Other statuses (`deleted`, `warning`, ...) say nothing about delivery: neither read nor judged.
  if (typeof name === 'string' && !STATUSES.has(name)) return undefined;
  const bad = unacceptable(status);
  if (bad) return bad;
  const id = readId(status.id, 'id');
  if (isRefusal(id)) return id;
  if (typeof name !== 'string') return refuse('invalid_field', 'needs status');
  const at = readInstant(status.timestamp, 'timestamp', 'seconds');
  if (isRefusal(at)) return at;
  const error = list(status.errors)[0];
  const code = isRecord(error) ? error.code : undefined;
  return {
    kind: 'status',
    account,
    status: name as MessageStatus,
    at,
    messages: { ids: [id] },
    ...(name === 'failed'
      ? {
          error: {
            code:
              typeof code === 'string' || typeof code === 'number'
                ? String(code).slice(0, 64)
                : 'unknown',
            title:
              (isRecord(error) ? (text(error.title) ?? text(error.message)) : null) ??
              'Meta reported the message as failed.',
          },
        }
      : {}),
  };
}

/** Adds an item to what applies or to what is set aside; `undefined` is an item not for us. */

/**
 * `{ object: "whatsapp_business_account", entry: [{ changes: [{ field, value }] }] }`. Each event
 * names the phone number id it is for: one Meta app's callback URL gets all its numbers.
 */
export function parseWhatsappNotification(body: unknown): ParsedNotification {
  if (
    !isRecord(body) ||
    body.object !== 'whatsapp_business_account' ||
    !Array.isArray(body.entry)
  ) {
    return { read: [], setAside: [], unreadable: 'not a WhatsApp Business Account notification' };
  }
  const parsed: ParsedNotification = { read: [], setAside: [] };
  for (const [e, entry] of body.entry.entries()) {
    for (const [c, change] of list(isRecord(entry) ? entry.changes : undefined).entries()) {
      const where = `entry[${e}].changes[${c}]`;
      const source = { path: where, item: 'change' as const, content: change };
      const value = recordAt(change, 'value');
      if (!value) {
        judge(parsed, source, refuse('invalid_field', 'needs value'));
        continue;
      }
      const account = readAccount(
        recordAt(value, 'metadata')?.phone_number_id,
        'metadata.phone_number_id',
      );
      if (isRefusal(account)) {
        // Whose messages they are is unknown: none of them can be filed.
        judge(parsed, source, account);
        continue;
      }
      for (const [m, message] of list(value.messages).entries()) {
        const source = { path: `${where}.value.messages[${m}]`, item: 'message' as const };
        judge(parsed, { ...source, content: message }, readWhatsappMessage(message, account));
      }
      for (const [s, status] of list(value.statuses).entries()) {
        const source = { path: `${where}.value.statuses[${s}]`, item: 'status' as const };
        judge(parsed, { ...source, content: status }, readWhatsappStatus(status, account));
      }
    }
  }
  return parsed;
}

/** The type of a Messenger message: `text`, or its first attachment's (image, audio, file...). */
