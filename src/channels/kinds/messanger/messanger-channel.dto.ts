import { ApiProperty } from '@nestjs/swagger';
import {
  AccessTokenField,
  AgentIdField,
  AppSecretField,
  ChannelResponseDto,
  UserIdField,
} from '../../channel-fields';

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

export class MessangerChannelDto extends ChannelResponseDto {
  @ApiProperty({ example: '1029384756' }) user_id!: string;
  @ApiProperty({ enum: ['Messanger'] }) type!: 'Messanger';
}
