import { ApiProperty } from '@nestjs/swagger';
import { AccessTokenField, AgentIdField, UserIdField } from './channel-fields';

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
  @ApiProperty({
    type: 'integer',
    format: 'date-time',
    description: 'Milliseconds since the Unix epoch.',
    example: 1763800000000,
  })
  created_at!: number;
  @ApiProperty({
    type: 'integer',
    format: 'date-time',
    description: 'Milliseconds since the Unix epoch.',
    example: 1763800000000,
  })
  updated_at!: number;
}
