import { ApiProperty } from '@nestjs/swagger';
import {
  AccessTokenField,
  AgentIdField,
  UserIdField,
  TimestampField,
  StatusReasonDto,
  StatusReasonField,
  WebhookUrlField,
} from '../channel-fields';

export class CreateMessangerChannelDto {
  @AccessTokenField(true) access_token!: string;
  @AgentIdField() agent_id!: string;
  @UserIdField() user_id!: string;
}

/** Both fields are required (the spec says so); `agent_id` is not accepted. */
export class UpdateMessangerChannelDto {
  @AccessTokenField(true) access_token!: string;
  @UserIdField() user_id!: string;
}

export class MessangerChannelDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() agent_id!: string;
  @ApiProperty() user_id!: string;
  @ApiProperty({ enum: ['Messanger'] }) type!: 'Messanger';
  @ApiProperty() organization_id!: string;
  @ApiProperty() created_by!: string;
  @ApiProperty({ description: "The verify token for Meta's webhook handshake (hub.verify_token)." })
  verification_token!: string;
  @WebhookUrlField() webhook_url!: string;
  @StatusReasonField() status_reason!: StatusReasonDto | null;
  @TimestampField() created_at!: number;
  @TimestampField() updated_at!: number;
}
