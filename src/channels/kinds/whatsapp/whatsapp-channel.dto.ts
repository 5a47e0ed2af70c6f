import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, ValidateIf } from 'class-validator';
import {
  AccessTokenField,
  AgentIdField,
  AppSecretField,
  ChannelResponseDto,
  NumberIdField,
} from '../../channel-fields';
import { IsOptionalNotNull } from '../../../common/http/validation.decorators';
import { CHANNEL_STATUSES, ChannelStatus } from './whatsapp-channel.entity';

const BUSINESS_ACCOUNT_ID = /^\d{1,32}$/;
const BUSINESS_ACCOUNT_DESCRIPTION =
  "The WhatsApp Business Account (WABA) id the number belongs to (digits). With it, agentline keeps the account's template catalog (GET /v1/channels/whatsapp/{id}/templates), synced with the channel's token, and checks templates against it.";

const businessAccountRules = () => [
  IsString(),
  IsNotEmpty(),
  Matches(BUSINESS_ACCOUNT_ID, {
    message: '$property must be a WhatsApp Business Account id: digits',
  }),
];

/** On create: optional, never null (absent: no catalog). */
const BusinessAccountIdField = () =>
  applyDecorators(
    ApiPropertyOptional({
      description: BUSINESS_ACCOUNT_DESCRIPTION,
      example: '102290129340398',
      pattern: BUSINESS_ACCOUNT_ID.source,
    }),
    IsOptionalNotNull(),
    ...businessAccountRules(),
  );

/** On modify: absent keeps it, a new id replaces it (and its catalog), `null` unbinds it. */
const BusinessAccountIdChange = () =>
  applyDecorators(
    ApiPropertyOptional({
      description: `${BUSINESS_ACCOUNT_DESCRIPTION} Another id replaces the catalog with that account's; null unbinds it (templates are then sent as given).`,
      example: '102290129340398',
      pattern: BUSINESS_ACCOUNT_ID.source,
      nullable: true,
      type: String,
    }),
    ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null),
    ...businessAccountRules(),
  );

export class CreateWhatsappChannelDto {
  @AccessTokenField(true) access_token!: string;
  @AgentIdField() agent_id!: string;
  @NumberIdField(true) number_id!: string;
  @AppSecretField() app_secret?: string;
  @BusinessAccountIdField() business_account_id?: string;
}

/** `agent_id` is not accepted here: a channel cannot move to another agent. */
export class UpdateWhatsappChannelDto {
  @AccessTokenField(false) access_token?: string;
  @NumberIdField(false) number_id?: string;
  @AppSecretField() app_secret?: string;
  @BusinessAccountIdChange() business_account_id?: string | null;
}

/** Why the last template catalog sync failed, and when (kept until a sync succeeds). */
export class TemplateSyncErrorDto {
  @ApiProperty({ example: 'Graph API answered HTTP 400 (100): Invalid parameter' })
  message!: string;
  @ApiProperty({ type: 'integer', description: 'Milliseconds since the Unix epoch.' })
  failed_at!: number;
}

/** The template catalog's state. */
export class TemplateCatalogStateDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'When the catalog was last synced (ms); null: never (no business_account_id, or the first sync has not succeeded yet), and templates are sent as given.',
    example: 1763800000000,
  })
  synced_at!: number | null;
  @ApiProperty({
    type: TemplateSyncErrorDto,
    nullable: true,
    description:
      'The last sync failure, kept until a sync succeeds; the catalog stays as it was. null when the last sync succeeded.',
  })
  sync_error!: TemplateSyncErrorDto | null;
}

export class WhatsappChannelDto extends ChannelResponseDto {
  @ApiProperty({ example: '106540352242922' }) number_id!: string;
  @ApiProperty({ enum: CHANNEL_STATUSES }) status!: ChannelStatus;
  @ApiProperty({ enum: ['Whatsapp'] }) type!: 'Whatsapp';
  @ApiProperty({
    type: String,
    nullable: true,
    example: '102290129340398',
    description: 'The WhatsApp Business Account whose template catalog is kept; null: none.',
  })
  business_account_id!: string | null;
  @ApiProperty({ type: TemplateCatalogStateDto }) templates!: TemplateCatalogStateDto;
}
