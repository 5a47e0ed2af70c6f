import {
  ChannelLimits,
  ChannelTransport,
  OutboundMessage,
  SendOutcome,
  SenderCredentials,
} from '../../channel-transport';
import { GraphApiClient } from '../meta/graph-api.client';

/** WhatsApp rejects text bodies longer than 4096 characters. */
export const WHATSAPP_LIMITS: ChannelLimits = { textLength: 4096 };

/** Meta's "re-engagement message": free-form text outside the 24-hour customer service window. */
export const OUTSIDE_WINDOW_ERROR = '131047';

/**
 * The Cloud API's send-message body (`POST /{phone-number-id}/messages`) for a text or a template
 * with body parameters. `to` is E.164; Meta's examples use digits only, the '+' adds nothing.
 */
export function whatsappMessagePayload(to: string, message: OutboundMessage): object {
  const common = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: to.replace(/^\+/, ''),
  };
  if (message.type === 'text') {
    return { ...common, type: 'text', text: { body: message.body, preview_url: false } };
  }
  return {
    ...common,
    type: 'template',
    template: {
      name: message.name,
      language: { code: message.languageCode },
      // Meta refuses an empty body component: a template without parameters has none.
      ...(message.bodyParameters.length > 0 && {
        components: [
          {
            type: 'body',
            parameters: message.bodyParameters.map((text) => ({ type: 'text', text })),
          },
        ],
      }),
    },
  };
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
    });
    // Only text can be refused for the window; a template refused so is final.
    return outcome.kind === 'permanent' &&
      message.type === 'text' &&
      this.resendsAsTemplate(outcome.code)
      ? { ...outcome, kind: 'resend_as_template' }
      : outcome;
  }

  resendsAsTemplate(errorCode: string): boolean {
    return errorCode === OUTSIDE_WINDOW_ERROR;
  }
}
