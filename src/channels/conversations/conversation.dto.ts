import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { PaginationQueryDto } from '../../common/http/pagination.dto';
import { IsOptionalNotNull } from '../../common/http/validation.decorators';
import { MESSAGE_CONTENTS } from './message-content.dto';

export class ListChannelMessagesQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({
    description:
      'Only messages from this sender: an E.164 phone or PSID, or a WhatsApp business-scoped user id (`from_user_id`).',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(160)
  from?: string;
}

export class SenderProfileDto {
  @ApiProperty({ type: String, nullable: true, example: 'Sheena Nelson' }) name!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The WhatsApp username, when the user has one.',
    example: '@realsheenanelson',
  })
  username!: string | null;
}

export class MessageContextDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The quoted message (null for a forward).',
  })
  message_id!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Who wrote the quoted message, when Meta says.',
  })
  from!: string | null;
  @ApiProperty() forwarded!: boolean;
  @ApiProperty({ description: 'Forwarded more than five times (WhatsApp).' })
  frequently_forwarded!: boolean;
}

@ApiExtraModels(...MESSAGE_CONTENTS)
export class ChannelMessageDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) channel_id!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'E.164 phone (WhatsApp) or page-scoped id (Messenger); null when Meta withholds the phone number of a WhatsApp user with a username (`from_user_id` names them).',
    example: '+34612345678',
  })
  from!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "WhatsApp's business-scoped user id (BSUID), when Meta gives one; send now's `to_user_id` answers it.",
    example: 'US.13491208655302741918',
  })
  from_user_id!: string | null;
  @ApiProperty({ type: SenderProfileDto, nullable: true }) profile!: SenderProfileDto | null;
  @ApiProperty({
    description: "Meta's message id (wamid or mid).",
    example: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdGQjQ5RkY0QjA2NkQ5QTc2RgA=',
  })
  message_id!: string;
  @ApiProperty({
    description:
      "Meta's type: text, image, audio, video, document, sticker, location, contacts, interactive, button, reaction, order, system, edit, revoke, unsupported (WhatsApp); text, the first attachment's type (image, video, audio, file, sticker, fallback), quick_reply, postback, reaction, referral (Messenger); any other type Meta sends is kept as it comes.",
  })
  type!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The human-readable text: the body, a caption, a button or list title, a place name, a postback title, a reaction emoji; null when there is none.',
  })
  text!: string | null;
  @ApiProperty({
    anyOf: MESSAGE_CONTENTS.map((content) => ({ $ref: getSchemaPath(content) })),
    nullable: true,
    description:
      'What the message holds, shaped by `type` (docs/webhooks.md has the table): media `{ media_id, mime_type, sha256, filename, caption, voice, animated, url }` (`url`: the download through agentline), location `{ latitude, longitude, name, address, url }`, interactive `{ reply_type, reply_id, title, description, response_json }`, button `{ payload, title }`, reaction `{ emoji, message_id }`, ... null for plain text and unknown types.',
    example: {
      media_id: '2754859441498128',
      mime_type: 'audio/ogg; codecs=opus',
      sha256: '81d3bd8a8db4868c9520ed47186e8b7c5789e61ff79f7f834be6950b808a90d3',
      filename: null,
      caption: null,
      voice: true,
      animated: null,
      url: 'http://localhost:3000/v1/channels/whatsapp/0190a4c2-7e1b-7c3d-9a51-2f6b8d4e0c17/media/2754859441498128',
    },
  })
  content!: Record<string, unknown> | null;
  @ApiProperty({
    type: MessageContextDto,
    nullable: true,
    description: 'The message this one replies to or forwards.',
  })
  context!: MessageContextDto | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "The ad or link the conversation started from (Meta's referral object).",
  })
  referral!: Record<string, unknown> | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "The message element exactly as Meta sent it, for what agentline doesn't model.",
  })
  raw!: Record<string, unknown> | null;
  @ApiProperty({ description: 'Unix milliseconds (Meta’s timestamp).' }) received_at!: number;
}

export class ChannelMessagePageDto {
  @ApiProperty({ type: [ChannelMessageDto] }) items!: ChannelMessageDto[];
  @ApiProperty() offset!: number;
  @ApiProperty() total_count!: number;
}

export class OptOutDto {
  @ApiProperty({ example: '+14155550123' }) phone!: string;
  @ApiProperty({ description: 'Unix milliseconds.' }) opted_out_at!: number;
  @ApiProperty({
    enum: ['keyword', 'api', 'meta'],
    description:
      '`keyword`: the person typed an opt-out word; `api`: PUT .../opt-outs/{phone}; `meta`: the person stopped marketing messages in WhatsApp (a user_preferences notification, or a send refused with 131050).',
  })
  source!: string;
  @ApiProperty({
    enum: ['all', 'marketing'],
    description:
      "`all`: nothing is sent to them (follow-ups and sends are skipped); `marketing`: only MARKETING templates are skipped (Meta's stop; only the person's resume in WhatsApp lifts it, DELETE does not).",
  })
  scope!: 'all' | 'marketing';
}

export class OptOutPageDto {
  @ApiProperty({ type: [OptOutDto] }) items!: OptOutDto[];
  @ApiProperty() offset!: number;
  @ApiProperty() total_count!: number;
}
