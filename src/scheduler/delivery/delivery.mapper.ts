import { toMillis, toMillisOrNull } from '../../common/time';
import { DeliveryAttemptDto, DeliveryDto } from '../../channels';
import { DeliveryEntity } from '../entities/delivery.entity';

/** A row of delivery_attempts, as the deliveries list reads it. */
export interface DeliveryAttemptRow {
  delivery_id: string;
  attempt: number;
  outcome: 'sent' | 'failed' | 'unknown' | null;
  started_at: Date;
  finished_at: Date | null;
  wa_message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  process_id: string;
}

export function toDeliveryAttemptResponse(row: DeliveryAttemptRow): DeliveryAttemptDto {
  return {
    attempt: Number(row.attempt),
    outcome: row.outcome ?? 'in_progress',
    started_at: toMillis(row.started_at),
    finished_at: toMillisOrNull(row.finished_at),
    wa_message_id: row.wa_message_id,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    process_id: row.process_id,
  };
}

export function toDeliveryResponse(
  delivery: DeliveryEntity,
  attempts: DeliveryAttemptRow[] = [],
): DeliveryDto {
  return {
    id: delivery.id,
    follow_up_id: delivery.followUpId,
    channel_id: delivery.channelId,
    phone: delivery.phone,
    occurrence_at: toMillis(delivery.occurrenceAt),
    status: delivery.status,
    attempts: delivery.attempts,
    attempt_history: attempts.map(toDeliveryAttemptResponse),
    last_error: delivery.lastErrorCode
      ? { code: delivery.lastErrorCode, message: delivery.lastErrorMessage ?? '' }
      : null,
    wa_message_id: delivery.providerMessageId,
    sent_at: toMillisOrNull(delivery.sentAt),
    delivered_at: toMillisOrNull(delivery.deliveredAt),
    read_at: toMillisOrNull(delivery.readAt),
    pricing: delivery.pricing,
    message_type: delivery.messageType,
    created_at: toMillis(delivery.createdAt),
    updated_at: toMillis(delivery.updatedAt),
  };
}
