import { toMillis } from '../../common/time';
import { ChannelMessageEntity, ChannelOptOutEntity } from './conversation.entities';
import type { ChannelMessageDto } from './conversation.dto';

/**
 * An inbound message as the messages list and the `message.received` event show it: the DTO the
 * OpenAPI document describes both with, so the two cannot drift apart.
 */
export type ChannelMessageResponse = ChannelMessageDto;

/**
 * Where agentline serves a media id of this channel (`/v1/channels/{kind}/{id}/media/`), for kinds
 * that download media through agentline; undefined for the others (their URLs are Meta's own).
 */
export type MediaUrl = ((mediaId: string) => string) | undefined;

export const mediaUrl = (
  publicUrl: string,
  channel: { kind: string; id: string },
  downloadsMedia: boolean,
): MediaUrl =>
  downloadsMedia
    ? (mediaId) =>
        `${publicUrl}/v1/channels/${channel.kind}/${channel.id}/media/${encodeURIComponent(mediaId)}`
    : undefined;

/** A media content's `url` is agentline's download URL, made when it is shown (PUBLIC_URL may move). */
function withMediaUrl(
  content: Record<string, unknown> | null,
  url: MediaUrl,
): Record<string, unknown> | null {
  if (!content || !url || typeof content.media_id !== 'string') return content;
  return { ...content, url: url(content.media_id) };
}

export const toChannelMessageResponse = (
  message: ChannelMessageEntity,
  url?: MediaUrl,
): ChannelMessageResponse => ({
  id: message.id,
  channel_id: message.channelId,
  from: message.sender,
  from_user_id: message.senderUserId,
  profile: message.profile,
  message_id: message.messageId,
  type: message.type,
  text: message.text,
  content: withMediaUrl(message.content, url),
  context: message.context,
  referral: message.referral,
  // The message element exactly as Meta sent it: always an object (the parsers read no other).
  raw: (message.raw ?? null) as Record<string, unknown> | null,
  received_at: toMillis(message.receivedAt),
});

export interface OptOutResponse {
  phone: string;
  opted_out_at: number;
  source: string;
  /** `all`: nothing is sent to them; `marketing`: MARKETING templates are not (Meta's stop). */
  scope: 'all' | 'marketing';
}

/** An opt-out of either table: the channel's own (`all`), or Meta's marketing stop. */
export type ListedOptOut = Pick<ChannelOptOutEntity, 'recipient' | 'optedOutAt'> & {
  source: string;
  scope: 'all' | 'marketing';
};

export const toOptOutResponse = (optOut: ListedOptOut): OptOutResponse => ({
  phone: optOut.recipient,
  opted_out_at: toMillis(optOut.optedOutAt),
  source: optOut.source,
  scope: optOut.scope,
});
