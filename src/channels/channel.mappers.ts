import { toMillis } from '../common/time';
import type { ChannelKind } from './channel-transport';
import { MessangerChannelDto } from './kinds/messanger/messanger-channel.dto';
import { WhatsappChannelDto } from './kinds/whatsapp/whatsapp-channel.dto';
import { MessangerChannelEntity } from './kinds/messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './kinds/whatsapp/whatsapp-channel.entity';

/** `{PUBLIC_URL}/v1/webhooks/{kind}/{id}`: where Meta calls for this channel. */
export const webhookUrl = (publicUrl: string, kind: ChannelKind, id: string): string =>
  `${publicUrl}/v1/webhooks/${kind}/${id}`;

const statusReason = (channel: WhatsappChannelEntity | MessangerChannelEntity) =>
  channel.status === 'inactive' && channel.statusReasonCode !== null
    ? { code: channel.statusReasonCode, message: channel.statusReasonMessage ?? '' }
    : null;

/** Response types have no secret fields, so a secret cannot leak through them. */
export function toWhatsappChannelResponse(
  channel: WhatsappChannelEntity,
  publicUrl: string,
): WhatsappChannelDto {
  return {
    id: channel.id,
    agent_id: channel.agentId,
    number_id: channel.numberId,
    status: channel.status,
    status_reason: statusReason(channel),
    type: 'Whatsapp',
    organization_id: channel.organizationId,
    created_by: channel.createdBy,
    verification_token: channel.verificationToken,
    webhook_url: webhookUrl(publicUrl, 'whatsapp', channel.id),
    created_at: toMillis(channel.createdAt),
    updated_at: toMillis(channel.updatedAt),
  };
}

/**
 * The spec's Messanger channel has no status field: an inactive one says so only through
 * `status_reason` (null while active), which the contract asks every channel to show.
 */
export function toMessangerChannelResponse(
  channel: MessangerChannelEntity,
  publicUrl: string,
): MessangerChannelDto {
  return {
    id: channel.id,
    agent_id: channel.agentId,
    user_id: channel.userId,
    type: 'Messanger',
    status_reason: statusReason(channel),
    organization_id: channel.organizationId,
    created_by: channel.createdBy,
    verification_token: channel.verificationToken,
    webhook_url: webhookUrl(publicUrl, 'messanger', channel.id),
    created_at: toMillis(channel.createdAt),
    updated_at: toMillis(channel.updatedAt),
  };
}
