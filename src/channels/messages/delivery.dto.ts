import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsOptionalNotNull } from '../../common/http/validation.decorators';
import { PaginationQueryDto } from '../../common/http/pagination.dto';

/** A delivery's statuses and message types as the API answers them and the scheduler stores them. */
export const DELIVERY_STATUSES = [
  'pending',
  'sending',
  'sent',
  'delivered',
  'read',
  'failed',
  'cancelled',
  'skipped',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const MESSAGE_TYPES = [
  'text',
  'template',
  // Rich sends now (a kind's own message, stored in the delivery's content).
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'contacts',
  'interactive',
  'reaction',
  'attachment',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export class ListDeliveriesQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this status.' })
  @IsOptionalNotNull()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export class DeliveryErrorDto {
  @ApiProperty({
    example: '131026',
    description: "Graph's error code, or ours (timeout, channel_inactive).",
  })
  code!: string;
  @ApiProperty({ example: 'Message undeliverable' }) message!: string;
}

export const ATTEMPT_OUTCOMES = ['in_progress', 'sent', 'failed', 'unknown'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** Attempts listed per delivery, most recent first; `attempts` counts them all. */
export const MAX_LISTED_ATTEMPTS = 10;

export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer', example: 1, description: 'Numbered from 1.' })
  attempt!: number;
  @ApiProperty({
    enum: ATTEMPT_OUTCOMES,
    description:
      'sent: Meta accepted it (wa_message_id); failed: see error; unknown: the process making the ' +
      'call stopped or lost the database before recording an answer, so the message may have gone ' +
      'out; in_progress: the call is being made.',
  })
  outcome!: AttemptOutcome;
  @ApiProperty({ type: 'integer' }) started_at!: number;
  @ApiProperty({ type: 'integer', nullable: true }) finished_at!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgARGBI' })
  wa_message_id!: string | null;
  @ApiProperty({ type: DeliveryErrorDto, nullable: true }) error!: DeliveryErrorDto | null;
  @ApiProperty({
    description: 'The agentline process that made the attempt (an opaque id).',
    example: '019ab0c2-7d3e-7c4a-9f10-2b6c1e0d4a55',
  })
  process_id!: string;
}

/** One message to one recipient, as sending now, a channel's and a follow-up's deliveries answer it. */
/** Meta's pricing of a sent message. */
export class DeliveryPricingDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'marketing, utility, authentication, service, referral_conversion, ...',
    example: 'utility',
  })
  category!: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) billable!: boolean | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'PMP (per message) or CBP.',
    example: 'PMP',
  })
  pricing_model!: string | null;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    format: 'uuid',
    type: String,
    nullable: true,
    description: 'Null for a message sent now.',
  })
  follow_up_id!: string | null;
  @ApiProperty({ format: 'uuid' }) channel_id!: string;
  @ApiProperty({
    example: '+34612345678',
    description: 'The recipient: an E.164 phone (WhatsApp) or a page-scoped id (Messenger).',
  })
  phone!: string;
  @ApiProperty({ type: 'integer', description: 'The occurrence (ms) this message belongs to.' })
  occurrence_at!: number;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: DeliveryStatus;
  @ApiProperty({ type: 'integer' }) attempts!: number;
  @ApiProperty({
    type: [DeliveryAttemptDto],
    description: `Its send attempts, most recent first (at most ${MAX_LISTED_ATTEMPTS}): a message sent twice shows both wa_message_ids.`,
  })
  attempt_history!: DeliveryAttemptDto[];
  @ApiProperty({ type: DeliveryErrorDto, nullable: true }) last_error!: DeliveryErrorDto | null;
  @ApiProperty({ type: String, nullable: true, example: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgARGBI' })
  wa_message_id!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) sent_at!: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'When Meta reported it delivered (ms).',
  })
  delivered_at!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'When Meta reported it read (ms).' })
  read_at!: number | null;
  @ApiProperty({
    type: DeliveryPricingDto,
    nullable: true,
    description:
      "What Meta charges for it, from the last status that said (WhatsApp's `pricing`); null until one does.",
  })
  pricing!: DeliveryPricingDto | null;
  @ApiProperty({
    enum: MESSAGE_TYPES,
    description:
      "What was (or will be) sent: text inside the 24-hour window, template outside it when there is one, or a send now's rich type (image, video, audio, document, sticker, location, contacts, interactive, reaction; Messenger attachment).",
  })
  message_type!: MessageType;
  @ApiProperty({ type: 'integer' }) created_at!: number;
  @ApiProperty({ type: 'integer' }) updated_at!: number;
}

/**
 * A page of deliveries (a channel's, a follow-up's). Its own class, not `PageEnvelope(DeliveryDto)`:
 * that would name another schema `DeliveryPageDto`, and OpenAPI keeps whichever it meets first.
 */
export class DeliveryPageDto {
  @ApiProperty({ type: [DeliveryDto] }) items!: DeliveryDto[];
  @ApiProperty({ type: 'integer', example: 0 }) offset!: number;
  @ApiProperty({ type: 'integer', example: 2 }) total_count!: number;
}
