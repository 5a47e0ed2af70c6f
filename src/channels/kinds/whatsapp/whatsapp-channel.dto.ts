import { ApiProperty } from '@nestjs/swagger';
import {
  AccessTokenField,
  AgentIdField,
  AppSecretField,
  ChannelResponseDto,
  NumberIdField,
} from '../../channel-fields';
import { CHANNEL_STATUSES, ChannelStatus } from './whatsapp-channel.entity';

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

export class WhatsappChannelDto extends ChannelResponseDto {
  @ApiProperty({ example: '106540352242922' }) number_id!: string;
  @ApiProperty({ enum: CHANNEL_STATUSES }) status!: ChannelStatus;
  @ApiProperty({ enum: ['Whatsapp'] }) type!: 'Whatsapp';
}
