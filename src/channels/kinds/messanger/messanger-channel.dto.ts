import { ApiProperty } from '@nestjs/swagger';
import {
  AccessTokenField,
  AgentIdField,
  AppSecretField,
  UserIdField,
  TimestampField,
  StatusReasonDto,
  StatusReasonField,
  WebhookUrlField,
} from '../../channel-fields';
import { CreatedByProperty, OrganizationIdProperty } from '../../../common/http/openapi.decorators';

export class CreateMessangerChannelDto {
  @AccessTokenField(true) access_token!: string;
  @AgentIdField() agent_id!: string;
  @UserIdField() user_id!: string;
  @AppSecretField() app_secret?: string;
}

/** Both of the spec's fields are required (it says so); `agent_id` is not accepted. */
export class UpdateMessangerChannelDto {
  @AccessTokenField(true) access_token!: string;
  @UserIdField() user_id!: string;
  @AppSecretField() app_secret?: string;
}

export class MessangerChannelDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'agent_support_es' }) agent_id!: string;
  @ApiProperty({ example: '1029384756' }) user_id!: string;
  @ApiProperty({ enum: ['Messanger'] }) type!: 'Messanger';
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
