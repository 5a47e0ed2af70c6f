import { isRecord } from '../../common/outbound-http';
import type { MessageStatus } from '../conversations/channel-conversations';

/** A client's message, as kept in channel_messages. */
export interface InboundMessage {
  kind: 'message';
  /** The Meta account it was sent to: the WhatsApp phone number id or the Page id, if given. */
  account?: string;
  /** E.164 (WhatsApp, `+` added) or the page-scoped id (Messenger). */
  sender: string;
  messageId: string;
  type: string;
  /** The text, caption or title; null when the message has none (most media, stickers). */
  text: string | null;
  at: number;
}

/** What Meta says became of messages the channel sent. */
export interface InboundStatus {
  kind: 'status';
  /** The Meta account whose message it is about (phone number id or Page id), if given. */
  account?: string;
  status: MessageStatus;
  at: number;
  messages: { ids: string[] } | { recipient: string; watermark: number };
  error?: { code: string; title: string };
}

export type InboundEvent = InboundMessage | InboundStatus;

/**
 * What one notification holds: the events it could read, and what it could not (kept with the
 * notification for inspection; the readable events still apply).
 */
export interface ParsedNotification {
  events: InboundEvent[];
  problems: string[];
}

const STATUSES: ReadonlySet<string> = new Set(['sent', 'delivered', 'read', 'failed']);

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;
const recordAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const field = isRecord(value) ? value[key] : undefined;
  return isRecord(field) ? field : undefined;
};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** Meta's WhatsApp timestamps are Unix seconds, as strings. */
const seconds = (value: unknown): number | undefined => {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0
    ? number * 1000
    : undefined;
};
/** Messenger's are milliseconds. */
const millis = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;

/** The text of a WhatsApp message of any type: body, caption, button or list title, emoji... */
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
    return { events: [], problems: ['not a WhatsApp Business Account notification'] };
  }
  const events: InboundEvent[] = [];
  const problems: string[] = [];
  for (const [e, entry] of body.entry.entries()) {
    for (const [c, change] of list(isRecord(entry) ? entry.changes : undefined).entries()) {
      const where = `entry[${e}].changes[${c}]`;
      const value = recordAt(change, 'value');
      if (!value) {
        problems.push(`${where}: no value`);
        continue;
      }
      const numberId = recordAt(value, 'metadata')?.phone_number_id;
      const account = numberId === undefined ? undefined : String(numberId);
      for (const [m, message] of list(value.messages).entries()) {
        const from = isRecord(message) ? message.from : undefined;
        const id = isRecord(message) ? message.id : undefined;
        const type = isRecord(message) ? message.type : undefined;
        const at = isRecord(message) ? seconds(message.timestamp) : undefined;
        if (
          !isRecord(message) ||
          typeof from !== 'string' ||
          !/^\+?\d{6,15}$/.test(from) ||
          typeof id !== 'string' ||
          typeof type !== 'string' ||
          at === undefined
        ) {
          problems.push(`${where}.value.messages[${m}]: needs from, id, type and timestamp`);
          continue;
        }
        events.push({
          kind: 'message',
          account,
          sender: from.startsWith('+') ? from : `+${from}`,
          messageId: id,
          type,
          text: whatsappText(message, type),
          at,
        });
      }
      for (const [s, status] of list(value.statuses).entries()) {
        const id = isRecord(status) ? status.id : undefined;
        const name = isRecord(status) ? status.status : undefined;
        const at = isRecord(status) ? seconds(status.timestamp) : undefined;
        if (typeof id !== 'string' || typeof name !== 'string' || at === undefined) {
          problems.push(`${where}.value.statuses[${s}]: needs id, status and timestamp`);
          continue;
        }
        // Other statuses (`deleted`, `warning`, ...) say nothing about delivery.
        if (!STATUSES.has(name)) continue;
        const error = isRecord(status) ? list(status.errors)[0] : undefined;
        events.push({
          kind: 'status',
          account,
          status: name as MessageStatus,
          at,
          messages: { ids: [id] },
          ...(name === 'failed'
            ? {
                error: {
                  code:
                    isRecord(error) && error.code !== undefined ? String(error.code) : 'unknown',
                  title:
                    (isRecord(error) ? (text(error.title) ?? text(error.message)) : null) ??
                    'Meta reported the message as failed.',
                },
              }
            : {}),
        });
      }
    }
  }
  return { events, problems };
}

/** The type of a Messenger message: `text`, or its first attachment's (image, audio, file...). */
function messangerMessage(message: Record<string, unknown>): { type: string; text: string | null } {
  const attachment = list(message.attachments)[0];
  if (isRecord(attachment)) {
    const type = typeof attachment.type === 'string' ? attachment.type : 'attachment';
    return { type, text: text(message.text) ?? text(attachment.title) };
  }
  return { type: 'text', text: text(message.text) };
}

/**
 * `{ object: "page", entry: [{ id, messaging: [{ sender, recipient, timestamp, message | delivery | read }] }] }`.
 * Each event names the Page it is for (`recipient.id`).
 */
export function parseMessangerNotification(body: unknown): ParsedNotification {
  if (!isRecord(body) || body.object !== 'page' || !Array.isArray(body.entry)) {
    return { events: [], problems: ['not a Messenger page notification'] };
  }
  const events: InboundEvent[] = [];
  const problems: string[] = [];
  for (const [e, entry] of body.entry.entries()) {
    for (const [i, item] of list(isRecord(entry) ? entry.messaging : undefined).entries()) {
      const where = `entry[${e}].messaging[${i}]`;
      const sender = recordAt(item, 'sender')?.id;
      const recipient = recordAt(item, 'recipient')?.id;
      const at = isRecord(item) ? millis(item.timestamp) : undefined;
      if (typeof sender !== 'string' || at === undefined) {
        problems.push(`${where}: needs sender.id and timestamp`);
        continue;
      }
      const account = recipient === undefined ? undefined : String(recipient);
      const message = recordAt(item, 'message');
      const delivery = recordAt(item, 'delivery');
      const read = recordAt(item, 'read');
      if (message) {
        // The page's own messages, echoed back: not the client's.
        if (message.is_echo === true) continue;
        if (typeof message.mid !== 'string') {
          problems.push(`${where}.message: needs mid`);
          continue;
        }
        events.push({
          kind: 'message',
          account,
          sender,
          messageId: message.mid,
          at,
          ...messangerMessage(message),
        });
      } else if (delivery) {
        const mids = list(delivery.mids).filter((mid): mid is string => typeof mid === 'string');
        const watermark = millis(delivery.watermark);
        if (mids.length > 0) {
          events.push({
            kind: 'status',
            account,
            status: 'delivered',
            at,
            messages: { ids: mids },
          });
        } else if (watermark !== undefined) {
          events.push({
            kind: 'status',
            account,
            status: 'delivered',
            at,
            messages: { recipient: sender, watermark },
          });
        } else {
          problems.push(`${where}.delivery: needs mids or watermark`);
        }
      } else if (read) {
        const watermark = millis(read.watermark);
        if (watermark === undefined) {
          problems.push(`${where}.read: needs watermark`);
          continue;
        }
        events.push({
          kind: 'status',
          account,
          status: 'read',
          at,
          messages: { recipient: sender, watermark },
        });
      }
      // Postbacks, referrals, reactions...: not subscribed, ignored.
    }
  }
  return { events, problems };
}
