import {
  contextError,
  isObject,
  messengerShapeError,
  whatsappShapeError,
} from './graph-message-shapes';
import { ReceivedTemplate, validateTemplate } from './graph-template-shapes';

/**
 * `POST /{sender}/messages` bodies checked as Meta checks them: a WhatsApp send (text, template,
 * rich), Messenger's Send API, a read receipt, a sender action. Pure: the sandbox's stand-in and
 * the tests' fake Graph API both answer with these, so they cannot disagree on Meta's shapes.
 */

/** A WhatsApp or Messenger send Meta would accept. */
export interface CheckedSend {
  to: string;
  /** The text's body, '' for other types. */
  body: string;
  template?: ReceivedTemplate;
  /** Messenger's `messaging_type`; undefined for WhatsApp. */
  messagingType?: string;
  /** A business-scoped user id, when WhatsApp's `recipient` names one instead of `to`. */
  recipient?: string;
  payload: Record<string, unknown>;
}

/** Another call on `/{sender}/messages`: a WhatsApp read receipt, or Messenger's sender action. */
export type MessagesCall =
  | { call: 'send'; send: CheckedSend }
  | { call: 'read_receipt' | 'sender_action'; payload: Record<string, unknown> };

/** The body of `POST /{sender}/messages`: what it is, or Graph's error message (code 100). */
export function checkMessagesBody(
  contentType: string | undefined,
  raw: string,
): MessagesCall | string {
  if (!contentType?.toLowerCase().startsWith('application/json')) {
    return '(#100) Content-Type must be application/json';
  }
  let payload: unknown;
  try {
    payload = JSON.parse(raw);
  } catch {
    return '(#100) Invalid parameter: the request body is not valid JSON';
  }
  if (!isObject(payload)) return '(#100) Invalid parameter: the request body must be an object';
  if ('status' in payload) {
    return checkReadReceipt(payload) ?? { call: 'read_receipt', payload };
  }
  if ('sender_action' in payload) {
    return checkSenderAction(payload) ?? { call: 'sender_action', payload };
  }
  const send = checkSendBody(payload);
  return typeof send === 'string' ? send : { call: 'send', send };
}

/** A send's body: Graph's error message, or what it sends. */
export function checkSendBody(p: Record<string, unknown>): CheckedSend | string {
  if (p.messaging_product === undefined && p.recipient !== undefined) return checkMessengerSend(p);
  if (p.messaging_product !== 'whatsapp') {
    return '(#100) The parameter messaging_product is required.';
  }
  if (p.recipient_type !== undefined && p.recipient_type !== 'individual') {
    return '(#100) Param recipient_type must be one of {INDIVIDUAL, GROUP}';
  }
  // A business-scoped user id goes in `recipient` (Meta's BSUID page); `to` wins when both are given.
  const bsuid =
    p.to === undefined &&
    typeof p.recipient === 'string' &&
    /^[A-Z]{2}\.[A-Za-z0-9.]+$/.test(p.recipient)
      ? { recipient: p.recipient }
      : {};
  const to = bsuid.recipient ?? p.to;
  if (typeof to !== 'string' || (!bsuid.recipient && !/^\+?\d{6,15}$/.test(to))) {
    return '(#100) Invalid parameter: to must be a phone number';
  }
  if (p.type === 'template') {
    const template = validateTemplate(p.template);
    return typeof template === 'string'
      ? template
      : { to, body: '', template, ...bsuid, payload: p };
  }
  if (p.type !== 'text') return whatsappShapeError(p) ?? { to, body: '', ...bsuid, payload: p };
  const context = contextError(p.context);
  if (context) return context;
  const text = p.text as Record<string, unknown> | undefined;
  if (typeof text?.body !== 'string' || text.body.length === 0) {
    return '(#100) The parameter text["body"] is required.';
  }
  if (text.body.length > 4096) {
    return "(#100) Param text['body'] must be at most 4096 characters long.";
  }
  if (text.preview_url !== undefined && typeof text.preview_url !== 'boolean') {
    return "(#100) Param text['preview_url'] must be a boolean.";
  }
  return { to, body: text.body, ...bsuid, payload: p };
}

/**
 * Messenger's Send API: `{recipient: {id}, messaging_type, message: {text}}`, or a tag, quick
 * replies or an attachment (graph-message-shapes.ts).
 */
function checkMessengerSend(p: Record<string, unknown>): CheckedSend | string {
  const recipient = p.recipient as Record<string, unknown> | undefined;
  if (typeof recipient?.id !== 'string' || !/^\d+$/.test(recipient.id)) {
    return '(#100) The parameter recipient is required';
  }
  if (!['RESPONSE', 'UPDATE', 'MESSAGE_TAG'].includes(String(p.messaging_type))) {
    return '(#100) Param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}';
  }
  const message = p.message as Record<string, unknown> | undefined;
  const refused = messengerShapeError(p);
  if (refused) return refused;
  return {
    to: recipient.id,
    body: typeof message?.text === 'string' ? message.text : '',
    messagingType: String(p.messaging_type),
    payload: p,
  };
}

const SENDER_ACTIONS = ['typing_on', 'typing_off', 'mark_seen'];

/**
 * "Mark messages as read" with its typing indicator: `{ messaging_product: "whatsapp", status:
 * "read", message_id, typing_indicator?: { type: "text" } }`, answered `{ success: true }`.
 */
export function checkReadReceipt(body: Record<string, unknown>): string | undefined {
  const allowed = ['messaging_product', 'status', 'message_id', 'typing_indicator'];
  const unknown = Object.keys(body).find((key) => !allowed.includes(key));
  if (unknown) return `(#100) Param ${unknown} is not allowed with status`;
  if (body.messaging_product !== 'whatsapp') {
    return '(#100) The parameter messaging_product is required.';
  }
  if (body.status !== 'read') return '(#100) Param status must be one of {READ}';
  if (typeof body.message_id !== 'string' || body.message_id === '') {
    return '(#100) The parameter message_id is required.';
  }
  if (body.typing_indicator !== undefined) {
    const typing = body.typing_indicator;
    if (!isObject(typing) || Object.keys(typing).length !== 1 || typing.type !== 'text') {
      return "(#100) Param typing_indicator['type'] must be one of {TEXT}";
    }
  }
  return undefined;
}

/**
 * Messenger's sender action: `{ recipient: { id }, sender_action }`, nothing else (Meta: other
 * properties go in a separate request), answered `{ recipient_id }`.
 */
export function checkSenderAction(body: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(body).find((key) => key !== 'recipient' && key !== 'sender_action');
  if (unknown) {
    return `(#100) Param ${unknown} cannot be sent with sender_action: send it in a separate request`;
  }
  const recipient = body.recipient;
  if (
    !isObject(recipient) ||
    Object.keys(recipient).length !== 1 ||
    typeof recipient.id !== 'string' ||
    !/^\d+$/.test(recipient.id)
  ) {
    return '(#100) The parameter recipient is required';
  }
  if (typeof body.sender_action !== 'string' || !SENDER_ACTIONS.includes(body.sender_action)) {
    return `(#100) Param sender_action must be one of {${SENDER_ACTIONS.map((a) => a.toUpperCase()).join(', ')}}`;
  }
  return undefined;
}
