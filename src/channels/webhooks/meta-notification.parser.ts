import {
  findUnacceptableValue,
  UNACCEPTABLE_MESSAGES,
  UnacceptableReason,
} from '../../common/http/input-guards';
import { isRecord } from '../../common/outbound-http';
import type { MessageStatus } from '../channel-transport';

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
 * Why an item was set aside. A label of `agentline_webhook_set_aside_total`, so a closed list:
 * the detail that goes with it names the field.
 */
export type SetAsideReason =
  /** A field agentline needs is missing or of the wrong type. */
  | 'invalid_field'
  /** An id longer than MAX_ID_LENGTH. */
  | 'too_long'
  /** Not a finite instant between 1970 and the end of 9999. */
  | 'timestamp_out_of_range'
  /** NUL, an unpaired surrogate, a number beyond a double, more than 1,000 keys: anywhere in it. */
  | UnacceptableReason
  /** Readable, but for a phone number id or page that no channel of the organization has. */
  | 'unknown_account'
  /** For another account of the organization whose channel has its own app secret (not this one). */
  | 'other_app_secret'
  /** PostgreSQL refused what it holds (what the checks above did not foresee). */
  | 'database_refused';

/** One message, one status, one Messenger event of another kind, or a change as a whole. */
export type ItemKind = 'message' | 'status' | 'event' | 'change';

/** Why an item cannot apply, in a label and in words. */
export interface ItemRefusal {
  reason: SetAsideReason;
  detail: string;
}

/** Where an item sits in the body, and the item as Meta sent it. */
export interface ItemSource {
  /** `entry[0].changes[0].value.messages[1]`, `entry[0].messaging[2]`. */
  path: string;
  item: ItemKind;
  content: unknown;
}

export interface ReadItem extends ItemSource {
  event: InboundEvent;
}

export type SetAsideItem = ItemSource & ItemRefusal;

/**
 * What one notification holds. Each item is judged on its own: the readable ones apply, the others
 * are set aside with their reason. `unreadable` says the body is not a notification of this kind.
 */
export interface ParsedNotification {
  read: ReadItem[];
  setAside: SetAsideItem[];
  unreadable?: string;
}

const STATUSES: ReadonlySet<string> = new Set(['sent', 'delivered', 'read', 'failed']);

/**
 * Ids are kept in indexes (message ids, senders, accounts), and PostgreSQL refuses an index entry
 * over about 2.7 kB; Meta's ids are under 150 characters.
 */
export const MAX_ID_LENGTH = 256;

/** The last instant that both Date and PostgreSQL write as a plain ISO 8601 date (year 9999). */
export const LATEST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const PHONE = /^\+?\d{6,15}$/;

const refuse = (reason: SetAsideReason, detail: string): ItemRefusal => ({ reason, detail });
const isRefusal = (value: unknown): value is ItemRefusal =>
  isRecord(value) && typeof value.reason === 'string' && typeof value.detail === 'string';

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;
const recordAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const field = isRecord(value) ? value[key] : undefined;
  return isRecord(field) ? field : undefined;
};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The whole item, as the API judges a request body: what PostgreSQL could not store. */
function unacceptable(content: unknown): ItemRefusal | undefined {
  const found = findUnacceptableValue(content);
  return (
    found && refuse(found.reason, `${found.field || 'it'} ${UNACCEPTABLE_MESSAGES[found.reason]}`)
  );
}

function readId(value: unknown, name: string): string | ItemRefusal {
  if (typeof value !== 'string' || value === '') {
    return refuse('invalid_field', `needs ${name}, a non-empty string`);
  }
  if (value.length > MAX_ID_LENGTH) {
    return refuse('too_long', `${name} is longer than ${MAX_ID_LENGTH} characters`);
  }
  return value;
}

/** The account an item is for; Meta sends it as a string, a number is read as its digits. */
function readAccount(value: unknown, name: string): string | undefined | ItemRefusal {
  if (value === undefined) return undefined;
  return readId(
    typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value,
    name,
  );
}

/**
 * Milliseconds. WhatsApp's timestamps are Unix seconds as strings, Messenger's milliseconds as
 * numbers. `1e20` is a number, but no date: beyond Date's range, toISOString throws.
 */
function readInstant(
  value: unknown,
  name: string,
  unit: 'seconds' | 'milliseconds',
): number | ItemRefusal {
  const number =
    unit === 'seconds' && typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || Number.isNaN(number)) {
    return refuse('invalid_field', `needs ${name}, Unix ${unit}`);
  }
  const ms = unit === 'seconds' ? number * 1000 : number;
  if (!(ms > 0 && ms <= LATEST_INSTANT_MS)) {
    return refuse(
      'timestamp_out_of_range',
      `${name} ${String(value).slice(0, 40)} is not an instant between 1970 and 9999`,
    );
  }
  return ms;
}

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
function judge(
  parsed: ParsedNotification,
  source: ItemSource,
  verdict: InboundEvent | ItemRefusal | undefined,
): void {
  if (verdict === undefined) return;
  if (isRefusal(verdict)) parsed.setAside.push({ ...source, ...verdict });
  else parsed.read.push({ ...source, event: verdict });
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
function messangerMessage(message: Record<string, unknown>): { type: string; text: string | null } {
  const attachment = list(message.attachments)[0];
  if (isRecord(attachment)) {
    const type =
      typeof attachment.type === 'string' && attachment.type !== ''
        ? attachment.type.slice(0, MAX_ID_LENGTH)
        : 'attachment';
    return { type, text: text(message.text) ?? text(attachment.title) };
  }
  return { type: 'text', text: text(message.text) };
}

/** What a Messenger messaging item is, or undefined for kinds agentline does not subscribe to. */
function messangerItemKind(item: unknown): ItemKind | undefined {
  if (!isRecord(item)) return 'event';
  if (isRecord(item.message)) return 'message';
  if (isRecord(item.delivery) || isRecord(item.read)) return 'status';
  return undefined; // postbacks, referrals, reactions...: not subscribed, ignored
}

function readMessangerEvent(item: unknown): InboundEvent | ItemRefusal | undefined {
  if (!isRecord(item)) return refuse('invalid_field', 'is not an object');
  const message = recordAt(item, 'message');
  const delivery = recordAt(item, 'delivery');
  const read = recordAt(item, 'read');
  // The page's own messages, echoed back: not the client's.
  if (message?.is_echo === true) return undefined;
  const bad = unacceptable(item);
  if (bad) return bad;
  const sender = readId(recordAt(item, 'sender')?.id, 'sender.id');
  if (isRefusal(sender)) return sender;
  const account = readAccount(recordAt(item, 'recipient')?.id, 'recipient.id');
  if (isRefusal(account)) return account;
  // Meta documents `delivery` without a timestamp: its watermark says when.
  const byWatermark = item.timestamp === undefined && !message && delivery !== undefined;
  const at = byWatermark
    ? readInstant(delivery.watermark, 'delivery.watermark', 'milliseconds')
    : readInstant(item.timestamp, 'timestamp', 'milliseconds');
  if (isRefusal(at)) return at;
  // A watermark is Messenger's "every message to this person up to then".
  const upTo = (status: 'delivered' | 'read', value: unknown, name: string) => {
    const watermark = readInstant(value, name, 'milliseconds');
    if (isRefusal(watermark)) return watermark;
    return {
      kind: 'status',
      account,
      status,
      at,
      messages: { recipient: sender, watermark },
    } as const;
  };
  if (message) {
    const mid = readId(message.mid, 'message.mid');
    if (isRefusal(mid)) return mid;
    return { kind: 'message', account, sender, messageId: mid, at, ...messangerMessage(message) };
  }
  if (delivery) {
    const mids = list(delivery.mids).filter((mid): mid is string => typeof mid === 'string');
    if (mids.some((mid) => mid.length > MAX_ID_LENGTH)) {
      return refuse('too_long', `a delivery.mids id is longer than ${MAX_ID_LENGTH} characters`);
    }
    if (mids.length > 0) {
      return { kind: 'status', account, status: 'delivered', at, messages: { ids: mids } };
    }
    if (delivery.watermark === undefined) {
      return refuse('invalid_field', 'needs delivery.mids or delivery.watermark');
    }
    return upTo('delivered', delivery.watermark, 'delivery.watermark');
  }
  return upTo('read', read?.watermark, 'read.watermark');
}

/**
 * `{ object: "page", entry: [{ id, messaging: [{ sender, recipient, timestamp, message | delivery | read }] }] }`.
 * Each event names the Page it is for (`recipient.id`).
 */
export function parseMessangerNotification(body: unknown): ParsedNotification {
  if (!isRecord(body) || body.object !== 'page' || !Array.isArray(body.entry)) {
    return { read: [], setAside: [], unreadable: 'not a Messenger page notification' };
  }
  const parsed: ParsedNotification = { read: [], setAside: [] };
  for (const [e, entry] of body.entry.entries()) {
    for (const [i, item] of list(isRecord(entry) ? entry.messaging : undefined).entries()) {
      const kind = messangerItemKind(item);
      if (kind === undefined) continue;
      judge(
        parsed,
        { path: `entry[${e}].messaging[${i}]`, item: kind, content: item },
        readMessangerEvent(item),
      );
    }
  }
  return parsed;
}
