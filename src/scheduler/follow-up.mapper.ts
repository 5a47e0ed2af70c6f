import { toMillis, toMillisOrNull } from '../common/time';
import { DeliveryStatusCounts, FollowUpDeliveryCountsDto, FollowUpDto } from './dto/follow-up.dto';
import { DELIVERY_STATUSES } from './entities/delivery.entity';
import { FollowUpEntity } from './entities/follow-up.entity';

/** Deliveries by status, all at 0: a follow-up that has sent nothing yet. */
export function noDeliveries(followUp: FollowUpEntity): FollowUpDeliveryCountsDto {
  const zero = () =>
    Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, 0])) as DeliveryStatusCounts;
  return {
    latest_occurrence_at: followUp.lastRunAt ? followUp.lastRunAt.getTime() : null,
    latest: zero(),
    total: zero(),
  };
}

export function toFollowUpResponse(
  followUp: FollowUpEntity,
  deliveries: FollowUpDeliveryCountsDto = noDeliveries(followUp),
): FollowUpDto {
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
    template: followUp.template,
    status: followUp.status,
    next_run_at: toMillisOrNull(followUp.nextRunAt),
    last_run_at: toMillisOrNull(followUp.lastRunAt),
    organization_id: followUp.organizationId,
    created_by: followUp.createdBy,
    created_at: toMillis(followUp.createdAt),
    updated_at: toMillis(followUp.updatedAt),
    deliveries,
  };
}
