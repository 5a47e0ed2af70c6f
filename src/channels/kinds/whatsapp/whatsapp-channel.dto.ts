import { ApiProperty } from '@nestjs/swagger';
import {
  AccessTokenField,
  AgentIdField,
  AppSecretField,
  NumberIdField,
  TimestampField,
  StatusReasonDto,
  StatusReasonField,
  WebhookUrlField,
} from '../../channel-fields';
import { CHANNEL_STATUSES, ChannelStatus } from '../whatsapp/whatsapp-channel.entity';
import { CreatedByProperty, OrganizationIdProperty } from '../../../common/http/openapi.decorators';

export class CreateWhatsappChannelDto {
  @AccessTokenField(true) access_token!: string;
  @AgentIdField() agent_id!: string;
  @NumberIdField(true) number_id!: string;
  @AppSecretField() app_secret?: string;
}

/** `agent_id` is not accepted here: a channel cannot move to another agent. */
export class UpdateWhatsappChannelDto {
  @AccessTokenField(false) access_token?: string;
  @NumberIdField(false) number_id?: string;
  @AppSecretField() app_secret?: string;
}

export class WhatsappChannelDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'agent_support_es' }) agent_id!: string;
  @ApiProperty({ example: '106540352242922' }) number_id!: string;
  @ApiProperty({ enum: CHANNEL_STATUSES }) status!: ChannelStatus;
  @ApiProperty({ enum: ['Whatsapp'] }) type!: 'Whatsapp';
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
