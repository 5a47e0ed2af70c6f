import { BUILTIN_CHANNEL_KINDS, FollowUpTemplateDto } from '../../channels';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsInt,
  Max,
  Min,
  IsNotEmpty,
  IsString,
  IsUUID,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsOptionalNotNull } from '../../common/http/validation.decorators';
import { PaginationQueryDto } from '../../common/http/pagination.dto';
import { DELIVERY_STATUSES, DeliveryStatus } from '../entities/delivery.entity';
import { FOLLOW_UP_STATUSES, FollowUpStatus } from '../entities/follow-up.entity';
import { MAX_PHONE_NUMBERS } from '../phone-numbers';
import { MAX_TIME_MS } from '../../common/zoned-time';
import { CreatedByProperty, OrganizationIdProperty } from '../../common/http/openapi.decorators';

const FREQUENCY_DESCRIPTION =
  'once | hourly | daily | weekly | monthly (at the creation wall-clock time), a 5-field cron ' +
  'expression, an RFC 5545 RRULE (optionally prefixed RRULE:) or an ISO 8601 duration (P1D, PT6H), ' +
  'evaluated in time_zone.';

export class CreateFollowUpDto {
  @ApiProperty({ example: 'agent_support_es', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  agent_id!: string;

  @ApiProperty({
    format: 'uuid',
    description:
      'A WhatsApp channel of the same agent: the `id` that `POST /v1/channels/whatsapp` answered (or `GET /v1/channels/whatsapp?agent_id=` lists). The example is a placeholder: paste your own.',
    example: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  channel_id!: string;

  @ApiProperty({
    type: [String],
    example: ['+34612345678', '14155552671'],
    description: `E.164 numbers ("+" optional), 1 to ${MAX_PHONE_NUMBERS}; returned normalised with "+", duplicates removed.`,
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_PHONE_NUMBERS)
  client_phone_numbers!: unknown[];

  @ApiProperty({ example: '0 9 * * 1-5', description: FREQUENCY_DESCRIPTION, maxLength: 500 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  frequency!: string;

  @ApiProperty({
    example: 'Remind {{title}}: ask whether the client needs anything else.',
    maxLength: 4096,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  prompt!: string;

  @ApiProperty({ example: 'Weekly check-in', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  title!: string;

  @ApiPropertyOptional({ example: 'Clients who bought the premium plan', maxLength: 2000 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @ApiPropertyOptional({
    example: 'Europe/Madrid',
    default: 'UTC',
    description: 'An IANA time zone.',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  time_zone?: string;

  @ApiPropertyOptional({
    type: FollowUpTemplateDto,
    description:
      "Sent instead of text to a number that has not written to the channel in the last 24 hours (Meta only accepts templates then); every string filled like the prompt. With the channel's template catalog it must exist in that language, be APPROVED and get exactly the parameters its components need (else 422 template_invalid); a template paused or disabled later fails that occurrence's deliveries (template_not_approved) without calling Meta. {{description}} needs a description (else 400); a value that is empty or over Meta's limit for its place once filled (a long {{message}} in a 60-character header text) fails that delivery (template_parameter_invalid) without calling Meta.",
  })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => FollowUpTemplateDto)
  template?: FollowUpTemplateDto;
}

/** A count per delivery status, every status present (0 when none). */
export type DeliveryStatusCounts = Record<DeliveryStatus, number>;

const COUNTS_EXAMPLE = Object.fromEntries(
  DELIVERY_STATUSES.map((status) => [status, status === 'sent' ? 2 : 0]),
);

export class FollowUpDeliveryCountsDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The latest occurrence sent out (ms), as last_run_at; null before the first.',
    example: 1763802000000,
  })
  latest_occurrence_at!: number | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: "The latest occurrence's deliveries by status (one per client phone number).",
    example: COUNTS_EXAMPLE,
  })
  latest!: DeliveryStatusCounts;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description: 'Every delivery of the follow-up so far, by status.',
    example: COUNTS_EXAMPLE,
  })
  total!: DeliveryStatusCounts;
}

export class FollowUpDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'agent_support_es' }) agent_id!: string;
  @ApiProperty({ format: 'uuid' }) channel_id!: string;
  @ApiProperty({ enum: BUILTIN_CHANNEL_KINDS.map((kind) => kind.type) }) channel_type!: string;
  @ApiProperty({ type: [String], example: ['+34612345678'] }) client_phone_numbers!: string[];
  @ApiProperty({ example: 'daily' }) frequency!: string;
  @ApiProperty({ example: 'Remind {{title}}: ask whether the client needs anything else.' })
  prompt!: string;
  @ApiProperty({ example: 'Weekly check-in' }) title!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ example: 'UTC' }) time_zone!: string;
  @ApiProperty({ type: FollowUpTemplateDto, nullable: true }) template!: FollowUpTemplateDto | null;
  @ApiProperty({ enum: FOLLOW_UP_STATUSES }) status!: FollowUpStatus;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'The next send, in milliseconds since the Unix epoch; null when nothing is left to run.',
    example: 1763802000000,
  })
  next_run_at!: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The occurrence (ms) most recently sent out; null before the first.',
  })
  last_run_at!: number | null;
  @OrganizationIdProperty() organization_id!: string;
  @CreatedByProperty() created_by!: string;
  @ApiProperty({ type: 'integer', format: 'date-time', example: 1763800000000 })
  created_at!: number;
  @ApiProperty({ type: 'integer', format: 'date-time', example: 1763800000000 })
  updated_at!: number;
  @ApiProperty({
    type: FollowUpDeliveryCountsDto,
    description:
      'What became of its messages: a follow-up can be `completed` with every delivery failed.',
  })
  deliveries!: FollowUpDeliveryCountsDto;
}

export class SchedulePreviewQueryDto {
  @ApiProperty({
    example: 'FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=10;BYMINUTE=0',
    description: FREQUENCY_DESCRIPTION,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  frequency!: string;

  @ApiPropertyOptional({ example: 'Europe/Madrid', default: 'UTC' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  time_zone?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_TIME_MS,
    description:
      'Milliseconds since the Unix epoch, up to the end of year 9999; default now. The creation instant for presets and durations.',
  })
  @IsOptionalNotNull()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_TIME_MS)
  from?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, default: 10 })
  @IsOptionalNotNull()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  count?: number;
}

export class SchedulePreviewDto {
  @ApiProperty({ type: [Number], example: [1763802000000, 1763888400000] }) occurrences!: number[];
}

export class ListFollowUpsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ description: 'Only the follow-ups of this agent.' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  agent_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only the follow-ups on this channel.' })
  @IsOptionalNotNull()
  @IsUUID('all')
  channel_id?: string;
}

export class FollowUpPageDto {
  @ApiProperty({
    type: [FollowUpDto],
    description:
      'Newest first. A page also stops before about 1 MiB of phone numbers and prompts: it may hold fewer than `limit` items although more follow; the next page starts at `offset + items.length`.',
  })
  items!: FollowUpDto[];
  @ApiProperty({ type: 'integer', example: 0 }) offset!: number;
  @ApiProperty({ type: 'integer', example: 1 }) total_count!: number;
}
