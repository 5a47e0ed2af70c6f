/**
 * Graph's checks of rich send bodies, as Meta documents them (the sandbox's stand-in answers with
 * them, and the tests' fake Graph API too): WhatsApp's "Messages"
 * guides (image, video, audio, document, sticker, location, contacts, interactive reply buttons,
 * list and CTA URL, reaction; `context` for a quoted reply) and Messenger's Send API (quick
 * replies, attachments, message tags). Each returns Graph's error message, or undefined when Meta
 * would accept the body.
 */

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
const invalid = (what: string) => `(#100) Invalid parameter: ${what}`;
const unknownKeys = (object: Json, allowed: string[], at: string): string | undefined => {
  const extra = Object.keys(object).find((key) => !allowed.includes(key));
  return extra === undefined ? undefined : invalid(`${at}[${extra}] is not a known field`);
};

/** A quoted reply: `context: { message_id }` (Meta's "Contextual replies"), on any message type. */
export function contextError(context: unknown): string | undefined {
  if (context === undefined) return undefined;
  if (!isObject(context) || !isText(context.message_id, 512)) {
    return invalid('context["message_id"] is required');
  }
  return unknownKeys(context, ['message_id'], 'context');
}

const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'];
const CAPTIONED = ['image', 'video', 'document'];
const HTTP_URL = /^https?:\/\/\S+$/;

/** The whole WhatsApp body besides `messaging_product`, `recipient_type` and `to`/`recipient`. */
export function whatsappShapeError(p: Json): string | undefined {
  const type = String(p.type);
  const known = ['messaging_product', 'recipient_type', 'to', 'recipient', 'type', 'context', type];
  const extra = unknownKeys(p, known, 'message');
  if (extra) return extra;
  const context = contextError(p.context);
  if (context) return context;
  const value = p[type];
  if (!isObject(value) && !(type === 'contacts' && Array.isArray(value))) {
    return `(#100) The parameter ${type} is required.`;
  }
  if (MEDIA_TYPES.includes(type)) return mediaError(type, value as Json);
  switch (type) {
    case 'location':
      return locationError(value as Json);
    case 'contacts':
      return contactsError(value);
    case 'interactive':
      return interactiveError(value as Json);
    case 'reaction':
      return reactionError(value as Json);
    default:
      return invalid(`type "${type}" is not a message type the sandbox knows`);
  }
}

function mediaError(type: string, media: Json): string | undefined {
  const allowed = ['id', 'link', ...(CAPTIONED.includes(type) ? ['caption'] : [])];
  const extra = unknownKeys(media, type === 'document' ? [...allowed, 'filename'] : allowed, type);
  if (extra) return extra;
  if ((media.id === undefined) === (media.link === undefined)) {
    return invalid(`${type} needs id or link, not both`);
  }
  if (media.id !== undefined && (typeof media.id !== 'string' || !/^\d+$/.test(media.id))) {
    return invalid(`${type}["id"] is not a media id`);
  }
  if (media.link !== undefined && (typeof media.link !== 'string' || !HTTP_URL.test(media.link))) {
    return invalid(`${type}["link"] is not a URL`);
  }
  if (media.caption !== undefined && !isText(media.caption, 1024)) {
    return invalid(`${type}["caption"] must be 1 to 1024 characters`);
  }
  if (media.filename !== undefined && !isText(media.filename, 240)) {
    return invalid('document["filename"] must be a non-empty string');
  }
  return undefined;
}

function locationError(location: Json): string | undefined {
  const extra = unknownKeys(location, ['latitude', 'longitude', 'name', 'address'], 'location');
  if (extra) return extra;
  for (const [field, bound] of [
    ['latitude', 90],
    ['longitude', 180],
  ] as const) {
    const value = Number(location[field]);
    if (location[field] === undefined || !Number.isFinite(value) || Math.abs(value) > bound) {
      return invalid(`location["${field}"] is required, in decimal degrees`);
    }
  }
  for (const field of ['name', 'address']) {
    if (location[field] !== undefined && typeof location[field] !== 'string') {
      return invalid(`location["${field}"] must be a string`);
    }
  }
  return undefined;
}

const CONTACT_FIELDS = ['addresses', 'birthday', 'emails', 'name', 'org', 'phones', 'urls'];

function contactsError(contacts: unknown): string | undefined {
  if (!Array.isArray(contacts) || contacts.length === 0) {
    return invalid('contacts must be a non-empty array');
  }
  for (const contact of contacts) {
    if (!isObject(contact)) return invalid('each contact must be an object');
    const extra = unknownKeys(contact, CONTACT_FIELDS, 'contacts');
    if (extra) return extra;
    if (!isObject(contact.name) || !isText(contact.name.formatted_name, 1024)) {
      return '(#131008) Required parameter is missing: contacts[name][formatted_name]';
    }
    if (
      !['first_name', 'last_name', 'middle_name', 'suffix', 'prefix'].some((part) =>
        isText((contact.name as Record<string, unknown>)[part], 1024),
      )
    ) {
      return '(#131009) Parameter value is not valid: contacts[name] needs at least one of first_name, last_name, middle_name, suffix, prefix beside formatted_name';
    }
    for (const list of ['addresses', 'emails', 'phones', 'urls']) {
      const entries = contact[list];
      if (entries !== undefined && (!Array.isArray(entries) || !entries.every(isObject))) {
        return invalid(`contacts[${list}] must be an array of objects`);
      }
    }
  }
  return undefined;
}

function interactiveError(interactive: Json): string | undefined {
  const type = interactive.type;
  if (type !== 'button' && type !== 'list' && type !== 'cta_url') {
    return invalid('interactive["type"] must be button, list or cta_url here');
  }
  const extra = unknownKeys(
    interactive,
    ['type', 'header', 'body', 'footer', 'action'],
    'interactive',
  );
  if (extra) return extra;
  const body = interactive.body;
  if (!isObject(body) || !isText(body.text, type === 'list' ? 4096 : 1024)) {
    return invalid(
      `interactive["body"]["text"] is required, at most ${type === 'list' ? 4096 : 1024} characters`,
    );
  }
  const footer = interactive.footer;
  if (footer !== undefined && (!isObject(footer) || !isText(footer.text, 60))) {
    return invalid('interactive["footer"]["text"] must be 1 to 60 characters');
  }
  if (interactive.header !== undefined) {
    const header = headerError(type, interactive.header);
    if (header) return header;
  }
  const action = interactive.action;
  if (!isObject(action)) return '(#100) The parameter interactive["action"] is required.';
  if (type === 'button') return buttonsError(action);
  if (type === 'list') return listError(action);
  return ctaError(action);
}

function headerError(type: string, header: unknown): string | undefined {
  if (!isObject(header)) return invalid('interactive["header"] must be an object');
  const kind = String(header.type);
  const kinds = type === 'list' ? ['text'] : ['text', 'image', 'video', 'document'];
  if (!kinds.includes(kind)) return invalid(`a ${type} header cannot be of type ${kind}`);
  const extra = unknownKeys(header, ['type', kind], 'interactive[header]');
  if (extra) return extra;
  if (kind === 'text') {
    return isText(header.text, 60)
      ? undefined
      : invalid('header["text"] must be 1 to 60 characters');
  }
  const media = header[kind];
  if (!isObject(media)) return `(#100) The parameter header["${kind}"] is required.`;
  // A header's media carries no caption or filename: only `id` or `link`.
  return mediaError('sticker', media) === undefined
    ? undefined
    : invalid(`header["${kind}"] needs id or link, and nothing else`);
}

function buttonsError(action: Json): string | undefined {
  const extra = unknownKeys(action, ['buttons'], 'action');
  if (extra) return extra;
  const buttons = action.buttons;
  if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) {
    return invalid('action["buttons"] must hold 1 to 3 buttons');
  }
  const ids = new Set<string>();
  const titles = new Set<string>();
  for (const button of buttons) {
    if (!isObject(button) || button.type !== 'reply' || !isObject(button.reply)) {
      return invalid('a button must be {type: "reply", reply: {id, title}}');
    }
    const { id, title } = button.reply;
    if (!isText(id, 256) || !isText(title, 20)) {
      return invalid('a reply button needs an id (256) and a title (1 to 20 characters)');
    }
    if (ids.has(id) || titles.has(title)) return invalid('button ids and titles must be unique');
    ids.add(id);
    titles.add(title);
  }
  return undefined;
}

function listError(action: Json): string | undefined {
  const extra = unknownKeys(action, ['button', 'sections'], 'action');
  if (extra) return extra;
  if (!isText(action.button, 20)) return invalid('action["button"] must be 1 to 20 characters');
  const sections = action.sections;
  if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10) {
    return invalid('action["sections"] must hold 1 to 10 sections');
  }
  const ids = new Set<string>();
  for (const section of sections) {
    if (!isObject(section) || !Array.isArray(section.rows) || section.rows.length === 0) {
      return invalid('a section needs rows');
    }
    if (!isText(section.title, 24))
      return invalid('each section needs a title (1 to 24 characters)');
    for (const row of section.rows as unknown[]) {
      if (!isObject(row) || !isText(row.id, 200) || !isText(row.title, 24)) {
        return invalid('a row needs an id (200) and a title (1 to 24 characters)');
      }
      if (
        row.description !== undefined &&
        !(typeof row.description === 'string' && row.description.length <= 72)
      ) {
        return invalid('a row description is at most 72 characters');
      }
      if (ids.has(row.id)) return invalid('row ids must be unique');
      ids.add(row.id);
    }
  }
  return ids.size > 10 ? invalid('a list has at most 10 rows') : undefined;
}

function ctaError(action: Json): string | undefined {
  const extra = unknownKeys(action, ['name', 'parameters'], 'action');
  if (extra) return extra;
  const parameters = action.parameters;
  if (action.name !== 'cta_url' || !isObject(parameters)) {
    return invalid('a cta_url action is {name: "cta_url", parameters: {display_text, url}}');
  }
  if (!isText(parameters.display_text, 20)) {
    return invalid('parameters["display_text"] must be 1 to 20 characters');
  }
  return typeof parameters.url === 'string' && HTTP_URL.test(parameters.url)
    ? undefined
    : invalid('parameters["url"] must be a URL');
}

function reactionError(reaction: Json): string | undefined {
  const extra = unknownKeys(reaction, ['message_id', 'emoji'], 'reaction');
  if (extra) return extra;
  if (!isText(reaction.message_id, 512))
    return '(#100) The parameter reaction["message_id"] is required.';
  return typeof reaction.emoji === 'string'
    ? undefined
    : '(#100) The parameter reaction["emoji"] is required.';
}

/** Meta's message tags still in force (the others were retired in 2020). */
const MESSENGER_TAGS = [
  'HUMAN_AGENT',
  'ACCOUNT_UPDATE',
  'CONFIRMED_EVENT_UPDATE',
  'POST_PURCHASE_UPDATE',
  'CUSTOMER_FEEDBACK',
];

/** Messenger's Send API body: the tag rules, then `message` (text with quick replies, or attachment). */
export function messengerShapeError(p: Json): string | undefined {
  const extra = unknownKeys(p, ['recipient', 'messaging_type', 'message', 'tag'], 'body');
  if (extra) return extra;
  if (p.messaging_type === 'MESSAGE_TAG' && !MESSENGER_TAGS.includes(String(p.tag))) {
    return '(#100) Param tag must be a valid message tag when messaging_type is MESSAGE_TAG';
  }
  if (p.messaging_type !== 'MESSAGE_TAG' && p.tag !== undefined) {
    return '(#100) Param tag is only allowed with messaging_type MESSAGE_TAG';
  }
  const message = p.message;
  if (!isObject(message)) return '(#100) The parameter message is required';
  const bad = unknownKeys(message, ['text', 'attachment', 'quick_replies'], 'message');
  if (bad) return bad;
  if ((message.text === undefined) === (message.attachment === undefined)) {
    return '(#100) Exactly one of message[text] or message[attachment] must be set';
  }
  if (message.text !== undefined && !isText(message.text, 2000)) {
    return '(#100) Length of param message[text] must be less than or equal to 2000';
  }
  if (message.quick_replies !== undefined) {
    const error = quickRepliesError(message.quick_replies);
    if (error) return error;
  }
  return message.attachment === undefined ? undefined : attachmentError(message.attachment);
}

function quickRepliesError(replies: unknown): string | undefined {
  if (!Array.isArray(replies) || replies.length === 0 || replies.length > 13) {
    return '(#100) param message[quick_replies] must have between 1 and 13 elements';
  }
  for (const reply of replies) {
    if (!isObject(reply)) return '(#100) Each quick reply must be an object';
    if (reply.content_type === 'text') {
      const extra = unknownKeys(
        reply,
        ['content_type', 'title', 'payload', 'image_url'],
        'quick_reply',
      );
      if (extra) return extra;
      if (!isText(reply.title, 20)) return '(#100) Quick reply title must be 1 to 20 characters';
      if (!isText(reply.payload, 1000))
        return '(#100) Quick reply payload must be 1 to 1000 characters';
    } else if (reply.content_type === 'user_phone_number' || reply.content_type === 'user_email') {
      const extra = unknownKeys(reply, ['content_type'], 'quick_reply');
      if (extra) return extra;
    } else {
      return '(#100) param quick_replies[content_type] must be one of {text, user_phone_number, user_email}';
    }
  }
  return undefined;
}

function attachmentError(attachment: unknown): string | undefined {
  if (
    !isObject(attachment) ||
    !['image', 'audio', 'video', 'file'].includes(String(attachment.type))
  ) {
    return '(#100) param message[attachment][type] must be one of {image, audio, video, file}';
  }
  const payload = attachment.payload;
  if (!isObject(payload)) return '(#100) The parameter message[attachment][payload] is required';
  const extra = unknownKeys(payload, ['url', 'attachment_id', 'is_reusable'], 'payload');
  if (extra) return extra;
  if ((payload.url === undefined) === (payload.attachment_id === undefined)) {
    return '(#100) Exactly one of payload[url] or payload[attachment_id] must be set';
  }
  if (
    payload.url !== undefined &&
    !(typeof payload.url === 'string' && HTTP_URL.test(payload.url))
  ) {
    return '(#100) payload[url] must be a URL';
  }
  if (
    payload.is_reusable !== undefined &&
    (typeof payload.is_reusable !== 'boolean' || payload.url === undefined)
  ) {
    return '(#100) payload[is_reusable] is a boolean, with a url only';
  }
  return undefined;
}
