import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsOptionalNotNull } from '../../../common/http/validation.decorators';
import { HTTPS_URL } from '../whatsapp/whatsapp-message.dto';

/**
 * Messenger's Send API beyond plain text (developers.facebook.com/docs/messenger-platform): quick
 * replies on a text ("Quick Replies": at most 13, title 20 characters, payload 1000), an
 * attachment by URL or saved `attachment_id` ("Send a Message", "Saving assets"), and a message tag
 * to write outside the 24-hour window ("Message Tags"). docs/decisions.md "Rich sends" cites them.
 */
export const QUICK_REPLY_LIMITS = { count: 13, title: 20, payload: 1000 } as const;
export const QUICK_REPLY_CONTENT_TYPES = ['text', 'user_phone_number', 'user_email'] as const;
export const MESSANGER_ATTACHMENT_TYPES = ['image', 'audio', 'video', 'file'] as const;
/** The tags agentline sends with; Meta retired the others in 2020. */
export const MESSANGER_TAGS = [
  'HUMAN_AGENT',
  'ACCOUNT_UPDATE',
  'CONFIRMED_EVENT_UPDATE',
  'POST_PURCHASE_UPDATE',
] as const;
export type MessangerTag = (typeof MESSANGER_TAGS)[number];

/** A quick reply: `text` (with title and payload), or asking for the person's phone or email. */
export class MessangerQuickReplyDto {
  @ApiProperty({ enum: QUICK_REPLY_CONTENT_TYPES, example: 'text' })
  @IsIn(QUICK_REPLY_CONTENT_TYPES)
  content_type!: (typeof QUICK_REPLY_CONTENT_TYPES)[number];

  @ApiPropertyOptional({
    maxLength: QUICK_REPLY_LIMITS.title,
    example: 'Blue',
    description: 'Required for text; none for user_phone_number and user_email.',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(QUICK_REPLY_LIMITS.title)
  title?: string;

  @ApiPropertyOptional({
    maxLength: QUICK_REPLY_LIMITS.payload,
    example: 'COLOR_BLUE',
    description: "Required for text: what the person's tap sends back (an item's quick_reply).",
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(QUICK_REPLY_LIMITS.payload)
  payload?: string;

  @ApiPropertyOptional({ example: 'https://shop.example.com/icons/blue.png' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @Matches(HTTPS_URL, { message: '$property must be an https URL' })
  image_url?: string;
}

/** An image, audio, video or file: by `url` (Meta downloads it) or a saved `attachment_id`. */
export class MessangerAttachmentDto {
  @ApiProperty({ enum: MESSANGER_ATTACHMENT_TYPES, example: 'image' })
  @IsIn(MESSANGER_ATTACHMENT_TYPES)
  type!: (typeof MESSANGER_ATTACHMENT_TYPES)[number];

  @ApiPropertyOptional({
    example: 'https://shop.example.com/images/blue-kettle.jpg',
    description: 'An https URL. Send `url` or `attachment_id`, exactly one.',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @Matches(HTTPS_URL, { message: '$property must be an https URL' })
  url?: string;

  @ApiPropertyOptional({
    example: '1857777774821032',
    description: "A saved attachment's id (Attachment Upload API). Send `url` or `attachment_id`.",
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(/^\d{1,32}$/, { message: '$property must be an attachment id (digits)' })
  attachment_id?: string;

  @ApiPropertyOptional({
    description:
      'With `url` only: ask Meta to keep the file for reuse (its id is not returned here).',
  })
  @IsOptionalNotNull()
  @IsBoolean()
  is_reusable?: boolean;
}

/**
 * What a Messenger send now may carry beside `text` (SendMessangerMessageDto extends it): quick
 * replies on the text, an attachment instead of it, and a message tag.
 */
export class MessangerRichFieldsDto {
  @ApiPropertyOptional({
    type: [MessangerQuickReplyDto],
    description: `With \`text\`: 1 to ${QUICK_REPLY_LIMITS.count} buttons above the composer.`,
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(QUICK_REPLY_LIMITS.count)
  @ValidateNested({ each: true })
  @Type(() => MessangerQuickReplyDto)
  quick_replies?: MessangerQuickReplyDto[];

  @ApiPropertyOptional({
    type: MessangerAttachmentDto,
    description: 'An image, audio, video or file instead of text.',
  })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => MessangerAttachmentDto)
  attachment?: MessangerAttachmentDto;

  @ApiPropertyOptional({
    enum: MESSANGER_TAGS,
    description:
      "A message tag: sent as `messaging_type: MESSAGE_TAG`, allowed outside the 24-hour window (HUMAN_AGENT: within 7 days of the person's last message). Non-promotional content only, as Meta's policy says.",
  })
  @IsOptionalNotNull()
  @IsIn(MESSANGER_TAGS)
  tag?: MessangerTag;
}
