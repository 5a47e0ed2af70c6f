import { isRecord } from '../../../common/outbound-http';
import {
  inboundMessage,
  type InboundEvent,
  type ItemKind,
  type ItemRefusal,
  type ParsedNotification,
} from '../../webhooks/inbound-notification';
import {
  isRefusal,
  judge,
  list,
  MAX_ID_LENGTH,
  readAccount,
  readId,
  readInstant,
  recordAt,
  refuse,
  text,
  unacceptable,
} from '../meta/meta-notification.reader';

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
    return inboundMessage({
      account,
      sender,
      messageId: mid,
      at,
      raw: item,
      ...messangerMessage(message),
    });
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
