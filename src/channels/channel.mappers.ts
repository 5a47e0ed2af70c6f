import type { StoredChannel } from './kinds/channel-kind';

/** `{PUBLIC_URL}/v1/webhooks/{kind}/{id}`: where the provider calls for this channel. */
export const webhookUrl = (publicUrl: string, channel: Pick<StoredChannel, 'kind' | 'id'>) =>
  `${publicUrl}/v1/webhooks/${channel.kind}/${channel.id}`;

/** The provider's reason while the channel is inactive, else null. */
export const statusReason = (channel: StoredChannel) =>
  channel.status === 'inactive' && channel.statusReasonCode !== null
    ? { code: channel.statusReasonCode, message: channel.statusReasonMessage ?? '' }
    : null;
