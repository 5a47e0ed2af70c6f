import type { UnacceptableReason } from '../../common/http/input-guards';
import type { MessageStatus } from '../channel-transport';

/*
 * What a kind's notification parser reads a provider's webhook into, whatever the provider: the
 * webhook inbox applies these (src/channels/kinds/<kind>/ holds each parser).
 */

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
