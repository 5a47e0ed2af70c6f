import type { UnacceptableReason } from '../../common/http/input-guards';
import type { MessageStatus } from '../channel-transport';

/*
 * What a kind's notification parser reads a provider's webhook into, whatever the provider: the
 * webhook inbox applies these (src/channels/kinds/<kind>/ holds each parser).
 */

/** The message a client's message replies to or forwards (WhatsApp `context`, Messenger `reply_to`). */
export interface MessageContext {
  /** The quoted message's id (wamid, mid); null for a forward. */
  message_id: string | null;
  /** Who wrote the quoted message (the business's number when it quotes the agent), if Meta says. */
  from: string | null;
  forwarded: boolean;
  /** Forwarded more than five times (WhatsApp). */
  frequently_forwarded: boolean;
}

/** What Meta says of the person who wrote: a display name and a WhatsApp username, if any. */
export interface SenderProfile {
  name: string | null;
  username: string | null;
}

/** A client's message, as kept in channel_messages. */
export interface InboundMessage {
  kind: 'message';
  /** The Meta account it was sent to: the WhatsApp phone number id or the Page id, if given. */
  account?: string;
  /**
   * E.164 (WhatsApp, `+` added) or the page-scoped id (Messenger); null when Meta withholds the
   * phone number of a WhatsApp user who has a username (then `senderUserId` names them).
   */
  sender: string | null;
  /** WhatsApp's business-scoped user id (BSUID, `from_user_id`), when Meta gives one. */
  senderUserId: string | null;
  profile: SenderProfile | null;
  messageId: string;
  type: string;
  /** The human-readable text: body, caption, button or list title, place name, emoji... or null. */
  text: string | null;
  /** What the message holds, shaped by `type` (the kind's parser documents each); null for text. */
  content: Record<string, unknown> | null;
  context: MessageContext | null;
  /** The ad or link the conversation started from, as Meta sends it. */
  referral: Record<string, unknown> | null;
  /** The message element exactly as Meta sent it. */
  raw: unknown;
  /** Whether it starts the 24-hour customer service window (a client's own action does). */
  opensWindow: boolean;
  /**
   * A word the client chose that may opt them out or back in: typed text, or the payload and title
   * of a button they pressed. Compared trimmed and upper-cased with the keyword lists.
   */
  keywords: string[];
  at: number;
  /** What the message says about who its sender is beyond `sender` and `senderUserId` (a changed number or id). */
  identity?: IdentityLink;
}

export const IDENTITY_SOURCES = [
  'send_answer',
  'message',
  'status',
  'user_id_update',
  'system_message',
] as const;
/** Where agentline learned that two forms name one person. */
export type IdentitySource = (typeof IDENTITY_SOURCES)[number];

/**
 * Forms that name one person now (a phone number and its BSUID, a previous and a current BSUID),
 * as Meta reveals them. `left` is a number the person moved away from: its opt-out carries over to
 * `forms`, but it is not linked to them (a carrier may give it to someone else).
 */
export interface IdentityLink {
  forms: string[];
  left: string | null;
  source: IdentitySource;
}

/** A notification about who a person is, not a message (WhatsApp's `user_id_update`). */
export interface InboundIdentity {
  kind: 'identity';
  account?: string;
  at: number;
  link: IdentityLink;
}

/**
 * A message with what it does not say filled in: no BSUID, profile, content, context or referral;
 * it opens the window; typed text is its only keyword.
 */
export function inboundMessage(
  message: Pick<
    InboundMessage,
    'account' | 'sender' | 'messageId' | 'type' | 'text' | 'at' | 'raw'
  > &
    Partial<InboundMessage>,
): InboundMessage {
  return {
    kind: 'message',
    senderUserId: null,
    profile: null,
    content: null,
    context: null,
    referral: null,
    opensWindow: true,
    keywords: message.type === 'text' && message.text !== null ? [message.text] : [],
    ...message,
  };
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
  /** What the message costs, when the status says (WhatsApp's `pricing`). */
  pricing?: MessagePricing;
  /** The recipient's forms the status names (WhatsApp's `recipient_id` and `recipient_user_id`). */
  identity?: IdentityLink;
  /**
   * The recipient, when the failure says they stopped marketing messages from this business
   * (WhatsApp's 131050): they are opted out of MARKETING templates.
   */
  stoppedMarketing?: string;
}

/**
 * A person's choice about marketing messages, told by Meta (WhatsApp's `user_preferences`):
 * `stop` opts them out of MARKETING templates, `resume` back in.
 */
export interface InboundPreference {
  kind: 'preference';
  account?: string;
  /** E.164 (the `wa_id`, `+` added). */
  recipient: string;
  value: 'stop' | 'resume';
  at: number;
}

/** The template notifications of a WhatsApp Business Account, by their field. */
export const TEMPLATE_UPDATE_FIELDS = [
  'message_template_status_update',
  'message_template_quality_update',
  'template_category_update',
] as const;
export type TemplateUpdateField = (typeof TEMPLATE_UPDATE_FIELDS)[number];

/**
 * A template of a WhatsApp Business Account changed at Meta (its status, quality or category). It
 * names the account (`entry.id`), not a number: it goes to the organization's channels of that
 * account, whose catalogs are synced again. `status` / `category`: what it changed to, when the
 * notification says it outright (applied to the catalog at once).
 */
export interface InboundTemplateUpdate {
  kind: 'template';
  /** Never set: the notification is for an account, and the channel that received it routes it. */
  account?: undefined;
  businessAccountId: string;
  field: TemplateUpdateField;
  name: string;
  language: string;
  status?: string;
  category?: string;
}

/** Meta's pricing of a sent message: its category, whether it is billed, and the model. */
export interface MessagePricing {
  category: string | null;
  billable: boolean | null;
  pricing_model: string | null;
}

/**
 * Errors Meta reports about the account rather than one message (WhatsApp's value-level
 * `errors`: a webhook it could not deliver, an account problem): the operator and the agent hear.
 */
export interface InboundAccountErrors {
  kind: 'error';
  account?: string;
  /** The notification's field the errors came in (`messages`, ...). */
  field: string;
  errors: MetaReportedError[];
}

/** One of Meta's `errors[]`, as an agent event shows it. */
export interface MetaReportedError {
  code: string;
  title: string | null;
  message: string | null;
  details: string | null;
}

export type InboundEvent =
  | InboundMessage
  | InboundStatus
  | InboundAccountErrors
  | InboundIdentity
  | InboundPreference
  | InboundTemplateUpdate;

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
  /** A notification field agentline does not apply (kept so the operator sees what Meta sends). */
  | 'unsupported_field'
  /** PostgreSQL refused what it holds (what the checks above did not foresee). */
  | 'database_refused';

/**
 * One message, one status, one Messenger event of another kind, a change as a whole, its errors, or
 * a notification about who a person is (WhatsApp's `user_id_update`).
 */
export type ItemKind =
  'message' | 'status' | 'event' | 'change' | 'errors' | 'identity' | 'preference' | 'template';

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
