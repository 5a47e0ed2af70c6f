import { createHash } from 'node:crypto';
import { isRecord } from '../../../common/outbound-http';
import {
  inboundMessage,
  type InboundEvent,
  type InboundMessage,
  type ItemKind,
  type ItemRefusal,
  type MessageContext,
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
  safely,
  text,
  unacceptable,
} from '../meta/meta-notification.reader';

/*
 * Messenger's `page` notifications (docs/webhooks.md, "Messenger message types"). A client's
 * message, postback, reaction and referral become inbound messages; deliveries and reads are
 * statuses by watermark (and a delivery's mids); echoes are the page's own messages and are
 * ignored; any other event kind, and every standby event, is set aside as `unsupported_field`.
 */

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const idOrNull = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;

/** The event kinds agentline applies, found by their key on a `messaging[]` item. */
const MESSAGE_EVENTS = ['message', 'postback', 'reaction', 'referral'] as const;
const STATUS_EVENTS = ['delivery', 'read'] as const;

/** The key naming what an item is (`optin`, `account_linking`, `pass_thread_control`, ...). */
function eventName(item: Record<string, unknown>): string {
  const known = [...MESSAGE_EVENTS, ...STATUS_EVENTS].find((key) => isRecord(item[key]));
  if (known) return known;
  const other = Object.keys(item).find(
    (key) => !['sender', 'recipient', 'timestamp'].includes(key),
  );
  return other ?? 'empty';
}

function itemKind(name: string): ItemKind {
  if ((MESSAGE_EVENTS as readonly string[]).includes(name)) return 'message';
  if ((STATUS_EVENTS as readonly string[]).includes(name)) return 'status';
  return 'event';
}

/**
 * Milliseconds. Messenger's timestamps are numbers in milliseconds; the postbacks reference's only
 * example says every property is a string, with `timestamp` "1527459824" in seconds: a string is
 * read as seconds when it is under 1e11 (in milliseconds that would be 1973).
 */
function readMessangerInstant(value: unknown, name: string): number | ItemRefusal {
  if (typeof value === 'string' && /^\d{1,16}$/.test(value)) {
    const number = Number(value);
    return number < 1e11
      ? readInstant(value, name, 'seconds')
      : readInstant(number, name, 'milliseconds');
  }
  return readInstant(value, name, 'milliseconds');
}

/**
 * A stable id for an event Meta gives none (a referral, a reaction, a postback without `mid`):
 * the same event resent is the same id, so it is kept once.
 */
function derivedId(kind: string, parts: unknown[]): string {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return `${kind}:${digest.slice(0, 32)}`;
}

/** One of a message's `attachments[]` as the agent gets it: its URL exactly as Meta gives it. */
interface MessangerAttachment {
  type: string | null;
  url: string | null;
  title: string | null;
  sticker_id: string | null;
  /** A shared location (no longer documented by Meta, still parsed by the libraries). */
  coordinates: { lat: number | null; long: number | null } | null;
}

function attachmentsOf(message: Record<string, unknown>): MessangerAttachment[] {
  return list(message.attachments)
    .filter(isRecord)
    .map((attachment) => {
      const payload = recordAt(attachment, 'payload');
      const coordinates = recordAt(payload, 'coordinates');
      return {
        type: stringOrNull(attachment.type),
        // A `fallback` (a shared link) has its url and title beside the payload, or in it.
        url: stringOrNull(payload?.url) ?? stringOrNull(attachment.url),
        title: stringOrNull(payload?.title) ?? stringOrNull(attachment.title),
        sticker_id: idOrNull(payload?.sticker_id),
        coordinates: coordinates
          ? {
              lat: typeof coordinates.lat === 'number' ? coordinates.lat : null,
              long: typeof coordinates.long === 'number' ? coordinates.long : null,
            }
          : null,
      };
    });
}

function replyContext(message: Record<string, unknown>): MessageContext | null {
  const replyTo = recordAt(message, 'reply_to');
  if (!replyTo) return null;
  return {
    message_id: stringOrNull(replyTo.mid),
    from: null,
    forwarded: false,
    frequently_forwarded: false,
  };
}

const words = (...values: unknown[]): string[] =>
  values.map(text).filter((word): word is string => word !== null);

type Sender = Pick<InboundMessage, 'account' | 'sender' | 'senderUserId' | 'at' | 'raw'>;

/** A message: text, attachments (its type the first one's), or a quick reply. */
function clientMessage(
  sender: Sender,
  message: Record<string, unknown>,
): InboundMessage | ItemRefusal {
  const mid = readId(message.mid, 'message.mid');
  if (isRefusal(mid)) return mid;
  const attachments = attachmentsOf(message);
  const quickReply = recordAt(message, 'quick_reply');
  const common = {
    ...sender,
    messageId: mid,
    context: replyContext(message),
    referral: recordAt(message, 'referral') ?? null,
  };
  if (attachments.length > 0) {
    const first = attachments[0].type;
    return inboundMessage({
      ...common,
      type: first ? first.slice(0, MAX_ID_LENGTH) : 'attachment',
      text: text(message.text) ?? text(attachments[0].title),
      content: { attachments },
      keywords: [],
    });
  }
  if (quickReply) {
    return inboundMessage({
      ...common,
      type: 'quick_reply',
      text: text(message.text),
      content: { payload: stringOrNull(quickReply.payload) },
      // The button's title (sent as the text) and its payload, like a WhatsApp template button.
      keywords: words(message.text, quickReply.payload),
    });
  }
  return inboundMessage({ ...common, type: 'text', text: text(message.text) });
}

/** A button the client pressed (Get Started, a postback button, a persistent menu item). */
function postbackMessage(
  sender: Sender,
  postback: Record<string, unknown>,
  timestamp: unknown,
): InboundMessage | ItemRefusal {
  const mid =
    postback.mid === undefined
      ? derivedId('postback', [
          sender.sender ?? sender.senderUserId,
          timestamp,
          postback.title,
          postback.payload,
        ])
      : readId(postback.mid, 'postback.mid');
  if (isRefusal(mid)) return mid;
  return inboundMessage({
    ...sender,
    messageId: mid,
    type: 'postback',
    text: text(postback.title),
    content: { title: stringOrNull(postback.title), payload: stringOrNull(postback.payload) },
    referral: recordAt(postback, 'referral') ?? null,
    keywords: words(postback.title, postback.payload),
  });
}

/** A reaction to a message, or its removal (`action: unreact`). */
function reactionMessage(
  sender: Sender,
  reaction: Record<string, unknown>,
  timestamp: unknown,
): InboundMessage {
  const action = stringOrNull(reaction.action);
  return inboundMessage({
    ...sender,
    // A reaction's `mid` is the message reacted to: the event itself has no id.
    messageId: derivedId('reaction', [
      sender.sender ?? sender.senderUserId,
      timestamp,
      action,
      reaction.mid,
      reaction.emoji,
      reaction.reaction,
    ]),
    type: 'reaction',
    text: action === 'unreact' ? null : text(reaction.emoji),
    content: {
      emoji: stringOrNull(reaction.emoji),
      action,
      message_id: stringOrNull(reaction.mid),
    },
    // Meta's policy lists "reacts to a message" among the actions that open the window.
    opensWindow: action !== 'unreact',
    keywords: [],
  });
}

/** An m.me link, an ad or a plugin that brought the client into an existing thread. */
function referralMessage(
  sender: Sender,
  referral: Record<string, unknown>,
  timestamp: unknown,
): InboundMessage {
  return inboundMessage({
    ...sender,
    messageId: derivedId('referral', [sender.sender ?? sender.senderUserId, timestamp, referral]),
    type: 'referral',
    text: null,
    referral,
    keywords: [],
  });
}

/**
 * Who wrote: the page-scoped id (PSID), or, for a person Meta knows only by a plugin's
 * `user_ref` (the chat and checkbox plugins), null with the user_ref as their user id.
 */
function readSender(
  item: Record<string, unknown>,
): { psid: string | null; userRef: string | null } | ItemRefusal {
  const sender = recordAt(item, 'sender');
  if (sender?.id === undefined && sender?.user_ref !== undefined) {
    const userRef = readId(sender.user_ref, 'sender.user_ref');
    return isRefusal(userRef) ? userRef : { psid: null, userRef };
  }
  const psid = readId(sender?.id, 'sender.id');
  return isRefusal(psid) ? psid : { psid, userRef: null };
}

function readMessangerEvent(item: unknown): InboundEvent[] | ItemRefusal | undefined {
  if (!isRecord(item)) return refuse('invalid_field', 'is not an object');
  const name = eventName(item);
  // The page's own messages, echoed back: not the client's.
  if (recordAt(item, 'message')?.is_echo === true) return undefined;
  if (name === 'empty') {
    return refuse('invalid_field', 'has no event (message, postback, delivery, read, ...)');
  }
  // Before its event's name is quoted in a detail.
  const bad = unacceptable(item);
  if (bad) return bad;
  if (itemKind(name) === 'event') {
    return refuse('unsupported_field', `agentline does not apply "${name.slice(0, 64)}" events`);
  }
  if (!isRecord(item[name])) return refuse('invalid_field', `${name} is not an object`);
  const sender = readSender(item);
  if (isRefusal(sender)) return sender;
  const account = readAccount(recordAt(item, 'recipient')?.id, 'recipient.id');
  if (isRefusal(account)) return account;
  const delivery = recordAt(item, 'delivery');
  // Meta documents `delivery` without a timestamp: its watermark says when.
  const at =
    item.timestamp === undefined && name === 'delivery'
      ? readMessangerInstant(delivery?.watermark, 'delivery.watermark')
      : readMessangerInstant(item.timestamp, 'timestamp');
  if (isRefusal(at)) return at;
  const from: Sender = {
    account,
    sender: sender.psid,
    senderUserId: sender.userRef,
    at,
    raw: item,
  };
  const one = (event: InboundEvent | ItemRefusal) => (isRefusal(event) ? event : [event]);
  switch (name) {
    case 'message':
      return one(clientMessage(from, item.message as Record<string, unknown>));
    case 'postback':
      return one(postbackMessage(from, item.postback as Record<string, unknown>, item.timestamp));
    case 'reaction':
      return [reactionMessage(from, item.reaction as Record<string, unknown>, item.timestamp)];
    case 'referral':
      return [referralMessage(from, item.referral as Record<string, unknown>, item.timestamp)];
  }
  // Statuses: about the messages the page sent to this person (a PSID).
  if (sender.psid === null) return refuse('invalid_field', 'needs sender.id, a non-empty string');
  const recipient = sender.psid;
  const upTo = (status: 'delivered' | 'read', value: unknown, field: string) => {
    const watermark = readMessangerInstant(value, field);
    if (isRefusal(watermark)) return watermark;
    return {
      kind: 'status',
      account,
      status,
      at,
      messages: { recipient, watermark },
    } as const;
  };
  if (delivery) {
    const mids = list(delivery.mids).filter((mid): mid is string => typeof mid === 'string');
    if (mids.some((mid) => mid.length > MAX_ID_LENGTH)) {
      return refuse('too_long', `a delivery.mids id is longer than ${MAX_ID_LENGTH} characters`);
    }
    if (mids.length === 0 && delivery.watermark === undefined) {
      return refuse('invalid_field', 'needs delivery.mids or delivery.watermark');
    }
    const events: InboundEvent[] = [];
    if (mids.length > 0) {
      events.push({ kind: 'status', account, status: 'delivered', at, messages: { ids: mids } });
    }
    // "All messages that were sent before or at this timestamp were delivered": the watermark
    // also covers earlier messages its mids do not name.
    if (delivery.watermark !== undefined) {
      const byWatermark = upTo('delivered', delivery.watermark, 'delivery.watermark');
      if (isRefusal(byWatermark)) return byWatermark;
      events.push(byWatermark);
    }
    return events;
  }
  return one(upTo('read', recordAt(item, 'read')?.watermark, 'read.watermark'));
}

/** A standby item: the page's echo is ignored like any echo, the rest set aside visibly. */
function readStandbyEvent(item: unknown): ItemRefusal | undefined {
  if (recordAt(item, 'message')?.is_echo === true) return undefined;
  return refuse(
    'unsupported_field',
    'standby: another app owns this thread (handover protocol); agentline does not answer it',
  );
}

/**
 * `{ object: "page", entry: [{ id, messaging: [{ sender, recipient, timestamp, message |
 * postback | reaction | referral | delivery | read }], standby: [...] }] }`. Each event names the
 * Page it is for (`recipient.id`).
 */
export function parseMessangerNotification(body: unknown): ParsedNotification {
  if (!isRecord(body) || body.object !== 'page' || !Array.isArray(body.entry)) {
    return { read: [], setAside: [], unreadable: 'not a Messenger page notification' };
  }
  const parsed: ParsedNotification = { read: [], setAside: [] };
  for (const [e, entry] of body.entry.entries()) {
    for (const [i, item] of list(isRecord(entry) ? entry.messaging : undefined).entries()) {
      const source = {
        path: `entry[${e}].messaging[${i}]`,
        item: isRecord(item) ? itemKind(eventName(item)) : ('event' as const),
        content: item,
      };
      const verdict = safely(() => readMessangerEvent(item));
      if (Array.isArray(verdict)) for (const event of verdict) judge(parsed, source, event);
      else judge(parsed, source, verdict);
    }
    for (const [i, item] of list(isRecord(entry) ? entry.standby : undefined).entries()) {
      judge(
        parsed,
        { path: `entry[${e}].standby[${i}]`, item: 'event', content: item },
        safely(() => readStandbyEvent(item)),
      );
    }
  }
  return parsed;
}
