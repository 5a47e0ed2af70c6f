import { toMillis } from '../common/time';
import type { StoredChannel } from './kinds/channel-kind';

/** `{PUBLIC_URL}/v1/webhooks/{kind}/{id}`: where the provider calls for this channel. */
export const webhookUrl = (publicUrl: string, channel: Pick<StoredChannel, 'kind' | 'id'>) =>
  `${publicUrl}/v1/webhooks/${channel.kind}/${channel.id}`;

/** The provider's reason while the channel is inactive, else null. */
export const statusReason = (channel: StoredChannel) =>
  channel.status === 'inactive' && channel.statusReasonCode !== null
    ? { code: channel.statusReasonCode, message: channel.statusReasonMessage ?? '' }
    : null;

/** The fields every kind's channel response has (its DTO extends ChannelResponseDto). */
export const channelResponseFields = (channel: StoredChannel, webhookUrl: string) => ({
  id: channel.id,
  agent_id: channel.agentId,
  organization_id: channel.organizationId,
  created_by: channel.createdBy,
  verification_token: channel.verificationToken,
  webhook_url: webhookUrl,
  status_reason: statusReason(channel),
  created_at: toMillis(channel.createdAt),
  updated_at: toMillis(channel.updatedAt),
});
