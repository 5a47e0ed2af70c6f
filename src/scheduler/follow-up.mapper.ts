import { toMillis, toMillisOrNull } from '../common/time';
import { FollowUpDto } from './dto/follow-up.dto';
import { FollowUpEntity } from './entities/follow-up.entity';

export function toFollowUpResponse(followUp: FollowUpEntity): FollowUpDto {
  return {
    id: followUp.id,
    agent_id: followUp.agentId,
    channel_id: followUp.channelId,
    channel_type: followUp.channelType,
    client_phone_numbers: followUp.clientPhoneNumbers,
    frequency: followUp.frequency,
    prompt: followUp.prompt,
    title: followUp.title,
    description: followUp.description,
    time_zone: followUp.timeZone,
    status: followUp.status,
    next_run_at: toMillisOrNull(followUp.nextRunAt),
    organization_id: followUp.organizationId,
    created_by: followUp.createdBy,
    created_at: toMillis(followUp.createdAt),
    updated_at: toMillis(followUp.updatedAt),
  };
}
