import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { PaginationQueryDto } from '../common/http/pagination.dto';
import { CreatedByProperty, OrganizationIdProperty } from '../common/http/openapi.decorators';
import { IsOptionalNotNull } from '../common/http/validation.decorators';

const identifier = (max: number) => [
  IsString(),
  IsNotEmpty(),
  MaxLength(max),
  Matches(/^\S+$/, { message: '$property must not contain whitespace' }),
];

/**
 * A Meta id (WhatsApp phone number id, Page id). Meta's are numeric strings; the contract only
 * says "string", so letters, digits, `_` and `-` are accepted: never `.`, `/` or `%`, so the id
 * can never be a path of its own in the Graph URL it goes into (`/v23.0/{id}/messages`).
 */
const META_ID = /^[A-Za-z0-9_-]+$/;
const metaId = () => [
  IsString(),
  IsNotEmpty(),
  MaxLength(64),
  Matches(META_ID, { message: '$property must be a Meta id: letters, digits, _ and - only' }),
];

/** Field rules shared by the channel DTOs, so that create and update validate alike. */
export const AgentIdField = () =>
  applyDecorators(ApiProperty({ example: 'agent_support_es', maxLength: 200 }), ...identifier(200));

export const AccessTokenField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: 'Meta access token. Stored encrypted; never returned.',
      example: 'EAAG...',
      maxLength: 4096,
      writeOnly: true,
    }),
    ...(required ? [] : [IsOptionalNotNull()]),
    ...identifier(4096),
  );

/**
 * A Meta app secret bound to one channel (issue 17): its webhooks are then verified with it alone,
 * not with META_APP_SECRET's list, which any app of the deployment can sign with.
 */
export const AppSecretField = () =>
  applyDecorators(
    ApiPropertyOptional({
      description:
        "The Meta app's secret (App settings → Basic). When given, this channel's webhook notifications are verified with it alone (X-Hub-Signature-256), instead of META_APP_SECRET's list. Stored encrypted; never returned. A PUT may replace it; it cannot be unbound.",
      example: '4f9c2b7e1d8a6035c1e9b2f47a6d0c38',
      minLength: 8,
      maxLength: 256,
      writeOnly: true,
    }),
    IsOptionalNotNull(),
    MinLength(8),
    ...identifier(256),
  );

export const NumberIdField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: 'WhatsApp Cloud API phone number id (Meta ids are digits).',
      example: '106540352242922',
      maxLength: 64,
      pattern: META_ID.source,
    }),
    ...(required ? [] : [IsOptionalNotNull()]),
    ...metaId(),
  );

export const UserIdField = () =>
  applyDecorators(
    ApiProperty({
      description: 'Facebook Page id (Meta ids are digits) the channel speaks as.',
      example: '1029384756',
      maxLength: 64,
      pattern: META_ID.source,
    }),
    ...metaId(),
  );

/** `created_at` / `updated_at` of a channel response (CONTRACT.md: integer milliseconds). */
export const TimestampField = () =>
  ApiProperty({
    type: 'integer',
    format: 'date-time',
    description: 'Milliseconds since the Unix epoch.',
    example: 1763800000000,
  });

/** The callback URL to give Meta, with the channel's verification_token. */
export const WebhookUrlField = () =>
  ApiProperty({
    format: 'uri',
    description:
      "Callback URL for Meta's webhooks: {PUBLIC_URL}/v1/webhooks/{whatsapp|messanger}/{id}.",
    example:
      'https://agentline.example.com/v1/webhooks/whatsapp/0190c8a0-0000-7000-8000-000000000001',
  });

/** Why Meta made a channel inactive; null while it is active. */
export class StatusReasonDto {
  @ApiProperty({ description: "Meta's error code, e.g. 190." }) code!: string;
  @ApiProperty({ description: "Meta's message." }) message!: string;
}

export const StatusReasonField = () =>
  ApiProperty({
    type: StatusReasonDto,
    nullable: true,
    description:
      'Why Meta made the channel inactive (its error code and message); null while it is active.',
  });

/** What every kind's channel response holds; each kind's DTO adds its account id and `type`. */
export abstract class ChannelResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'agent_support_es' }) agent_id!: string;
  @OrganizationIdProperty() organization_id!: string;
  @CreatedByProperty() created_by!: string;
  @ApiProperty({
    description: "The verify token for Meta's webhook handshake (hub.verify_token).",
    example: 'b4e1c7a9d2f64e8b9a0c3d5e7f1a2b3c',
  })
  verification_token!: string;
  @WebhookUrlField() webhook_url!: string;
  @StatusReasonField() status_reason!: StatusReasonDto | null;
  @TimestampField() created_at!: number;
  @TimestampField() updated_at!: number;
}

export class ListChannelsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ description: 'Only the channels of this agent.' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  agent_id?: string;
}
