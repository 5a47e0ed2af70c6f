import {
  ChannelLimits,
  ChannelTransport,
  OutboundMessage,
  SendOutcome,
  SenderCredentials,
} from '../../channel-transport';
import { GraphApiClient } from '../meta/graph-api.client';
import { messangerRichPayload } from './messanger-rich.payload';

/** Messenger's Send API refuses text longer than 2000 characters. */
export const MESSANGER_LIMITS: ChannelLimits = { textLength: 2000 };

/**
 * The Send API's body (`POST /{page-id}/messages` with the Page access token): a reply inside the
 * 24-hour window (`messaging_type: RESPONSE`) to a page-scoped id, or a rich message (quick
 * replies, an attachment, a tag).
 */
export function messangerMessagePayload(to: string, message: OutboundMessage): object | undefined {
  if (message.type === 'rich') return messangerRichPayload(to, message.content);
  if (message.type !== 'text') return undefined;
  return { recipient: { id: to }, messaging_type: 'RESPONSE', message: { text: message.body } };
}

/** Facebook Messenger through the Graph API client; the sender id is the Page id (`user_id`). */
export class MessangerTransport implements ChannelTransport {
  readonly limits = MESSANGER_LIMITS;

  constructor(private readonly graph: GraphApiClient) {}

  async send(from: SenderCredentials, to: string, message: OutboundMessage): Promise<SendOutcome> {
    const payload = messangerMessagePayload(to, message);
    if (!payload) {
      return {
        kind: 'permanent',
        code: 'unsupported_message',
        message: 'Messenger channels send text only; WhatsApp templates do not exist there.',
      };
    }
    return this.graph.sendMessage({
      senderId: from.senderId,
      accessToken: from.accessToken,
      payload,
    });
  }

  /** Messenger has no templates to fall back on: outside the window a send is refused up front. */
  resendsAsTemplate(): boolean {
    return false;
  }
}
