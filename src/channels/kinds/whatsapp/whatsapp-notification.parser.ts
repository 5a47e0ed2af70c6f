import { findUnacceptableValue } from '../../../common/http/input-guards';
import { isRecord } from '../../../common/outbound-http';
import type { MessageStatus } from '../../channel-transport';
import type {
  InboundMessage,
  InboundStatus,
  ItemRefusal,
  MessageContext,
  MetaReportedError,
  ParsedNotification,
  SenderProfile,
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
  safely,
  STATUSES,
  text,
  unacceptable,
} from '../meta/meta-notification.reader';
import { readUserIdUpdate, statusIdentity, systemIdentity } from './whatsapp-identity.reader';
import {
  isTemplateUpdateField,
  readTemplateUpdate,
  readUserPreference,
} from './whatsapp-account-notifications.reader';

/** Meta's "this person stopped marketing messages from the business" (a `failed` status). */
const MARKETING_STOPPED = '131050';

/** WhatsApp's display names are at most 25 characters; anything longer is not a name. */
const MAX_PROFILE_LENGTH = 256;
/** Errors are logged one by one: Meta sends one or two. */
const MAX_REPORTED_ERRORS = 10;

/** The media types: their object is `{ id, mime_type, sha256, caption?, filename?, voice?, animated? }`. */
const MEDIA_TYPES: ReadonlySet<string> = new Set([
  'image',
  'video',
  'audio',
  'document',
  'sticker',
]);

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
/** A number, or the digits of one as a string; else null. */
const numberOrNull = (value: unknown): number | null => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
};
/** A phone number as the API shows it: E.164 with its `+`. Meta sends digits. */
const e164 = (value: string): string => (value.startsWith('+') ? value : `+${value}`);
const phoneOrNull = (value: unknown): string | null =>
  typeof value === 'string' && PHONE.test(value) ? e164(value) : null;

/** The human-readable text of a message of any type: body, caption, title, place, emoji. */
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
    case 'order':
    case 'system':
      return text(content?.text) ?? text(content?.body);
    case 'edit': {
      // One level: Meta does not nest edits, and a body that does must not recurse deeply.
      const edited = recordAt(content, 'message');
      return edited && typeof edited.type === 'string' && edited.type !== 'edit'
        ? whatsappText(edited, edited.type)
        : null;
    }
    default:
      return null;
  }
}

/** `content` by type, as docs/webhooks.md tabulates it; null for text and for unknown types. */
function whatsappContent(
  message: Record<string, unknown>,
  type: string,
): Record<string, unknown> | null {
  const content = recordAt(message, type);
  if (!content) return null;
  if (MEDIA_TYPES.has(type)) {
    return {
      media_id: stringOrNull(content.id),
      mime_type: stringOrNull(content.mime_type),
      sha256: stringOrNull(content.sha256),
      filename: stringOrNull(content.filename),
      caption: stringOrNull(content.caption),
      voice: typeof content.voice === 'boolean' ? content.voice : null,
      animated: typeof content.animated === 'boolean' ? content.animated : null,
      // Filled in when shown: agentline's download URL for media_id.
      url: null,
    };
  }
  switch (type) {
    case 'location':
      return {
        latitude: numberOrNull(content.latitude),
        longitude: numberOrNull(content.longitude),
        name: stringOrNull(content.name),
        address: stringOrNull(content.address),
        url: stringOrNull(content.url),
      };
    case 'interactive': {
      const replyType = ['button_reply', 'list_reply', 'nfm_reply'].find((key) =>
        isRecord(content[key]),
      );
      const reply = replyType ? recordAt(content, replyType) : undefined;
      return {
        reply_type: replyType ?? stringOrNull(content.type),
        reply_id: stringOrNull(reply?.id),
        title: stringOrNull(reply?.title) ?? stringOrNull(reply?.name),
        description: stringOrNull(reply?.description) ?? stringOrNull(reply?.body),
        // A Flow's answers, the JSON string Meta sends.
        response_json: stringOrNull(reply?.response_json),
      };
    }
    case 'button':
      return { payload: stringOrNull(content.payload), title: stringOrNull(content.text) };
    case 'reaction':
      // Removing a reaction is a reaction without an emoji (Meta omits it, or sends "").
      return { emoji: text(content.emoji), message_id: stringOrNull(content.message_id) };
    case 'order':
      return {
        catalog_id: stringOrNull(content.catalog_id),
        product_items: list(content.product_items),
      };
    case 'system':
      return {
        type: stringOrNull(content.type),
        body: stringOrNull(content.body),
        wa_id: phoneOrNull(content.wa_id ?? content.new_wa_id),
        user_id: stringOrNull(content.user_id),
      };
    case 'edit':
      return {
        original_message_id: stringOrNull(content.original_message_id),
        text: whatsappText(message, 'edit'),
      };
    case 'revoke':
      return { original_message_id: stringOrNull(content.original_message_id) };
    default:
      return null;
  }
}

/** `contacts` is an array at the message (a shared contact card), not an object. */
const contentOf = (message: Record<string, unknown>, type: string) =>
  type === 'contacts' ? { contacts: list(message.contacts) } : whatsappContent(message, type);

function whatsappContext(message: Record<string, unknown>): MessageContext | null {
  const context = recordAt(message, 'context');
  if (!context) return null;
  return {
    message_id: stringOrNull(context.id),
    from: phoneOrNull(context.from) ?? stringOrNull(context.from),
    forwarded: context.forwarded === true || context.frequently_forwarded === true,
    frequently_forwarded: context.frequently_forwarded === true,
  };
}

/** A change's `contacts[]`, by `wa_id` and `user_id`: looked up once per message. */
interface Contacts {
  byKey: Map<unknown, Record<string, unknown>>;
  only?: Record<string, unknown>;
}

function indexContacts(contacts: unknown[]): Contacts {
  const records = contacts.filter(isRecord);
  const byKey = new Map<unknown, Record<string, unknown>>();
  for (const contact of records) {
    for (const key of [contact.wa_id, contact.user_id]) {
      if (typeof key === 'string' && !byKey.has(key)) byKey.set(key, contact);
    }
  }
  return { byKey, only: records.length === 1 ? records[0] : undefined };
}

/**
 * The profile Meta gives beside the messages (`contacts[]`): the one whose `wa_id` or `user_id`
 * is the sender's, or the only one.
 */
function senderProfile(
  contacts: Contacts,
  from: string | undefined,
  userId: string | null,
): SenderProfile | null {
  const contact =
    (from !== undefined ? contacts.byKey.get(from) : undefined) ??
    (userId !== null ? contacts.byKey.get(userId) : undefined) ??
    contacts.only;
  const profile = recordAt(contact, 'profile');
  if (!profile) return null;
  // Outside the message element, so not judged with it: a name PostgreSQL cannot store is
  // dropped, never the message.
  const storable = (value: unknown) => {
    const found = text(value);
    return found !== null && found.length <= MAX_PROFILE_LENGTH && !findUnacceptableValue(found)
      ? found
      : null;
  };
  return { name: storable(profile.name), username: storable(profile.username) };
}

/** Words a client chose that may opt them out or in: typed text, a template button's payload and title. */
function keywordsOf(message: Record<string, unknown>, type: string): string[] {
  const content = recordAt(message, type);
  if (type === 'text') return [text(content?.body)].filter((w): w is string => w !== null);
  if (type === 'button') {
    return [text(content?.payload), text(content?.text)].filter((w): w is string => w !== null);
  }
  return [];
}

function readWhatsappMessage(
  message: unknown,
  account: string | undefined,
  contacts: Contacts,
): InboundMessage | ItemRefusal {
  if (!isRecord(message)) return refuse('invalid_field', 'is not an object');
  const bad = unacceptable(message);
  if (bad) return bad;
  // A user with a username may have no phone number here: their business-scoped user id names
  // them (a system notice of a changed id names the previous one).
  const from = message.from;
  if (from !== undefined && (typeof from !== 'string' || !PHONE.test(from))) {
    return refuse('invalid_field', 'from is not a phone number');
  }
  const rawUserId = message.from_user_id ?? recordAt(message, 'system')?.previous_user_id;
  const readUserId = rawUserId === undefined ? null : readId(rawUserId, 'from_user_id');
  // Only a message with no phone needs its user id: beside a phone, an unreadable one is dropped.
  if (isRefusal(readUserId) && from === undefined) return readUserId;
  const userId = isRefusal(readUserId) ? null : readUserId;
  if (from === undefined && userId === null) {
    return refuse('invalid_field', 'needs from (a phone number) or from_user_id');
  }
  const type = readId(message.type, 'type');
  if (isRefusal(type)) return type;
  const id = readId(message.id, 'id');
  if (isRefusal(id)) return id;
  const at = readInstant(message.timestamp, 'timestamp', 'seconds');
  if (isRefusal(at)) return at;
  return {
    kind: 'message',
    account,
    sender: from === undefined ? null : e164(from),
    senderUserId: userId,
    profile: senderProfile(contacts, from, userId),
    messageId: id,
    type,
    text: whatsappText(message, type),
    content: contentOf(message, type),
    context: whatsappContext(message),
    referral: recordAt(message, 'referral') ?? null,
    raw: message,
    // Meta's notices (a changed number) are not the client writing.
    opensWindow: type !== 'system',
    keywords: keywordsOf(message, type),
    at,
    identity: type === 'system' ? systemIdentity(message) : undefined,
  };
}

/** Meta's `errors[]` as an agent event shows them. */
function readErrors(errors: unknown[]): MetaReportedError[] {
  return errors.filter(isRecord).map((error) => ({
    code:
      typeof error.code === 'string' || typeof error.code === 'number'
        ? String(error.code).slice(0, 64)
        : 'unknown',
    title: text(error.title),
    message: text(error.message),
    details: text(recordAt(error, 'error_data')?.details),
  }));
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
  const pricing = recordAt(status, 'pricing');
  return {
    kind: 'status',
    account,
    status: name as MessageStatus,
    at,
    messages: { ids: [id] },
    ...(pricing && {
      pricing: {
        category: stringOrNull(pricing.category),
        billable: typeof pricing.billable === 'boolean' ? pricing.billable : null,
        pricing_model: stringOrNull(pricing.pricing_model),
      },
    }),
    identity: statusIdentity(status),
    ...(name === 'failed' &&
      String(code) === MARKETING_STOPPED && {
        stoppedMarketing:
          phoneOrNull(status.recipient_id) ??
          (typeof status.recipient_user_id === 'string' ? status.recipient_user_id : undefined),
      }),
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
      // Template notifications are the account's (entry.id), with no phone number id.
      const changeField = isRecord(change) ? change.field : undefined;
      if (typeof changeField === 'string' && isTemplateUpdateField(changeField)) {
        judge(
          parsed,
          { ...source, item: 'template' },
          safely(() =>
            readTemplateUpdate(changeField, value, isRecord(entry) ? entry.id : undefined),
          ),
        );
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
      const field =
        isRecord(change) && typeof change.field === 'string' ? change.field : 'messages';
      const badField = unacceptable(field);
      if (badField) {
        judge(parsed, source, badField);
        continue;
      }
      if (field === 'user_id_update') {
        for (const [u, update] of list(value.user_id_update).entries()) {
          const path = `${where}.value.user_id_update[${u}]`;
          judge(
            parsed,
            { path, item: 'identity', content: update },
            safely(() => readUserIdUpdate(update, account)),
          );
        }
        continue;
      }
      if (field === 'user_preferences') {
        for (const [u, preference] of list(value.user_preferences).entries()) {
          judge(
            parsed,
            {
              path: `${where}.value.user_preferences[${u}]`,
              item: 'preference',
              content: preference,
            },
            safely(() => readUserPreference(preference, account)),
          );
        }
        continue;
      }
      if (field !== 'messages') {
        // Kept and counted, for the operator to see what Meta sends that agentline does not apply.
        judge(
          parsed,
          source,
          refuse(
            'unsupported_field',
            `agentline does not apply "${field.slice(0, 64)}" notifications`,
          ),
        );
        continue;
      }
      const contacts = indexContacts(list(value.contacts));
      for (const [m, message] of list(value.messages).entries()) {
        const source = { path: `${where}.value.messages[${m}]`, item: 'message' as const };
        judge(
          parsed,
          { ...source, content: message },
          safely(() => readWhatsappMessage(message, account, contacts)),
        );
      }
      for (const [s, status] of list(value.statuses).entries()) {
        const source = { path: `${where}.value.statuses[${s}]`, item: 'status' as const };
        judge(
          parsed,
          { ...source, content: status },
          safely(() => readWhatsappStatus(status, account)),
        );
      }
      const errors = readErrors(list(value.errors).slice(0, MAX_REPORTED_ERRORS));
      if (errors.length > 0) {
        judge(
          parsed,
          { path: `${where}.value.errors`, item: 'errors', content: value.errors },
          unacceptable(value.errors) ?? { kind: 'error', account, field, errors },
        );
      }
    }
  }
  return parsed;
}
