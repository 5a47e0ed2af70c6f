import {
  ChannelLimits,
  ChannelTransport,
  OutboundMessage,
  SendOutcome,
  SenderCredentials,
} from '../../channel-transport';
import { isRecord } from '../../../common/outbound-http';
import { GraphApiClient } from '../meta/graph-api.client';
import { whatsappTemplatePayload } from './templates/whatsapp-template.payload';
import { isBusinessScopedUserId } from './whatsapp-number-forms';
import { whatsappRichPayload } from './whatsapp-rich.payload';

/** WhatsApp rejects text bodies longer than 4096 characters. */
export const WHATSAPP_LIMITS: ChannelLimits = { textLength: 4096 };

/** Meta's "re-engagement message": free-form text outside the 24-hour customer service window. */
export const OUTSIDE_WINDOW_ERROR = '131047';

/**
 * The Cloud API's send-message body (`POST /{phone-number-id}/messages`) for a text, a template
 * (its components: whatsappTemplatePayload) or a rich message (whatsapp-rich.payload.ts). `to` is
 * E.164 (Meta's examples use digits only, the '+' adds nothing), or a
 * business-scoped user id, which Meta takes in `recipient` instead of `to`.
 */
export function whatsappMessagePayload(to: string, message: OutboundMessage): object {
  const common = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    ...(isBusinessScopedUserId(to) ? { recipient: to } : { to: to.replace(/^\+/, '') }),
  };
  if (message.type === 'text') {
    return { ...common, type: 'text', text: { body: message.body, preview_url: false } };
  }
  if (message.type === 'rich') return { ...common, ...whatsappRichPayload(message.content) };
  return { ...common, type: 'template', template: whatsappTemplatePayload(message) };
}

/**
 * The forms of the recipient Meta's answer names besides the one dialled: `contacts[].wa_id` (its
 * number as WhatsApp knows it: a Brazilian mobile without its ninth digit, a Mexican `521`) and
 * `contacts[].user_id` (its BSUID), as E.164 and as given.
 */
export function answeredForms(to: string, answer: unknown): string[] {
  const contacts = isRecord(answer) && Array.isArray(answer.contacts) ? answer.contacts : [];
  const forms = new Set<string>();
  for (const contact of contacts.slice(0, 1)) {
    if (!isRecord(contact)) continue;
    if (typeof contact.wa_id === 'string' && /^\d{6,15}$/.test(contact.wa_id)) {
      forms.add(`+${contact.wa_id}`);
    }
    if (typeof contact.user_id === 'string' && isBusinessScopedUserId(contact.user_id)) {
      forms.add(contact.user_id);
    }
  }
  forms.delete(to);
  return [...forms];
}

/** WhatsApp Cloud API messages through the Graph API client; the sender id is the `number_id`. */
export class WhatsappTransport implements ChannelTransport {
  readonly limits = WHATSAPP_LIMITS;

  constructor(private readonly graph: GraphApiClient) {}

  async send(from: SenderCredentials, to: string, message: OutboundMessage): Promise<SendOutcome> {
    const outcome = await this.graph.sendMessage({
      senderId: from.senderId,
      accessToken: from.accessToken,
      payload: whatsappMessagePayload(to, message),
      recipientForms: (answer) => answeredForms(to, answer),
    });
    // Only free-form messages (text, rich) are refused for the window; a template refused so is final.
    return outcome.kind === 'permanent' &&
      message.type !== 'template' &&
      this.resendsAsTemplate(outcome.code)
      ? { ...outcome, kind: 'resend_as_template' }
      : outcome;
  }

  resendsAsTemplate(errorCode: string): boolean {
    return errorCode === OUTSIDE_WINDOW_ERROR;
  }
}
