import { toMillis } from '../../common/time';
import { ChannelMessageEntity, ChannelOptOutEntity } from './conversation.entities';

/** An inbound message as the messages list and the `message.received` event show it. */
export interface ChannelMessageResponse {
  id: string;
  channel_id: string;
  from: string;
  message_id: string;
  type: string;
  text: string | null;
  received_at: number;
}

export const toChannelMessageResponse = (
  message: ChannelMessageEntity,
): ChannelMessageResponse => ({
  id: message.id,
  channel_id: message.channelId,
  from: message.sender,
  message_id: message.messageId,
  type: message.type,
  text: message.text,
  received_at: toMillis(message.receivedAt),
});

export interface OptOutResponse {
  phone: string;
  opted_out_at: number;
  source: string;
}

export const toOptOutResponse = (optOut: ChannelOptOutEntity): OptOutResponse => ({
  phone: optOut.recipient,
  opted_out_at: toMillis(optOut.optedOutAt),
  source: optOut.source,
});
