import { toMillis } from '../common/time';
import { MessangerChannelDto } from './messanger/messanger-channel.dto';
import { WhatsappChannelDto } from './whatsapp/whatsapp-channel.dto';
import { MessangerChannelEntity } from './messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './whatsapp/whatsapp-channel.entity';

/** Response types have no secret fields, so a secret cannot leak through them. */
export function toWhatsappChannelResponse(channel: WhatsappChannelEntity): WhatsappChannelDto {
  return {
    id: channel.id,
    agent_id: channel.agentId,
    number_id: channel.numberId,
    status: channel.status,
    type: 'Whatsapp',
    organization_id: channel.organizationId,
    created_by: channel.createdBy,
    verification_token: channel.verificationToken,
    created_at: toMillis(channel.createdAt),
    updated_at: toMillis(channel.updatedAt),
  };
}

export function toMessangerChannelResponse(channel: MessangerChannelEntity): MessangerChannelDto {
  return {
    id: channel.id,
    agent_id: channel.agentId,
    user_id: channel.userId,
    type: 'Messanger',
    organization_id: channel.organizationId,
    created_by: channel.createdBy,
    verification_token: channel.verificationToken,
    created_at: toMillis(channel.createdAt),
    updated_at: toMillis(channel.updatedAt),
  };
}
