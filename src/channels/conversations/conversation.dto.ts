import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { PaginationQueryDto } from '../../common/http/pagination.dto';
import { IsOptionalNotNull } from '../../common/http/validation.decorators';

export class ListChannelMessagesQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ description: 'Only messages from this sender (E.164 phone or PSID).' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  from?: string;
}

export class ChannelMessageDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) channel_id!: string;
  @ApiProperty({
    description: 'E.164 phone (WhatsApp) or page-scoped id (Messenger).',
    example: '+34612345678',
  })
  from!: string;
  @ApiProperty({
    description: "Meta's message id (wamid or mid).",
    example: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdGQjQ5RkY0QjA2NkQ5QTc2RgA=',
  })
  message_id!: string;
  @ApiProperty({
    description:
      "Meta's type: text, image, audio, video, document, sticker, location, reaction, interactive, button, ...",
  })
  type!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The text, caption or title; null for media without one.',
  })
  text!: string | null;
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
  @ApiProperty({ enum: ['keyword', 'api'] }) source!: string;
}

export class OptOutPageDto {
  @ApiProperty({ type: [OptOutDto] }) items!: OptOutDto[];
  @ApiProperty() offset!: number;
  @ApiProperty() total_count!: number;
}
