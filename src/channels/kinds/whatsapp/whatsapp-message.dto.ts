import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsOptionalNotNull } from '../../../common/http/validation.decorators';

/**
 * The rich messages a WhatsApp channel sends now, in the shapes of Meta's "Messages" guides
 * (developers.facebook.com/documentation/business-messaging/whatsapp/messages/…): media by an
 * uploaded `media_id` or a hosted `link`, location, contacts, interactive (`button`, `list`,
 * `cta_url`) and reaction. Meta's length and count limits are checked here (one decorator per
 * field); the rules between fields (one of `media_id` or `link`, a caption only where Meta shows
 * one, unique button ids) in whatsapp-rich.content.ts. docs/decisions.md "Rich sends" cites them.
 */

/** Meta's uploaded media ids are numbers ("1013859600285441"). */
export const WHATSAPP_MEDIA_ID = /^\d{1,32}$/;
/** Meta fetches a `link` itself: an https URL with a host, no spaces. */
export const HTTPS_URL = /^https:\/\/[^\s/?#]+\.[^\s/?#]+(?:[/?#]\S*)?$/;
const HTTPS_URL_MESSAGE = '$property must be an https URL';
/** Meta's message ids (wamid): a reply quotes one, a reaction names one. */
export const WAMID = /^wamid\.[A-Za-z0-9+/=_-]{1,256}$/;
const WAMID_MESSAGE =
  '$property must be a WhatsApp message id (wamid.…), such as an item’s message_id';

/** Meta: a media caption is at most 1024 characters (image, video and document only). */
export const CAPTION_MAX = 1024;
/** Interactive limits: button and cta_url bodies 1024, list bodies 4096; header and footer 60. */
export const INTERACTIVE_LIMITS = {
  buttonBody: 1024,
  listBody: 4096,
  ctaBody: 1024,
  header: 60,
  footer: 60,
  buttons: 3,
  buttonTitle: 20,
  buttonId: 256,
  listButton: 20,
  sections: 10,
  rows: 10,
  sectionTitle: 24,
  rowTitle: 24,
  rowId: 200,
  rowDescription: 72,
  ctaDisplayText: 20,
} as const;

/** An image, video, audio, document or sticker: `media_id` (uploaded) or `link`, exactly one. */
export class WhatsappMediaDto {
  @ApiPropertyOptional({
    example: '1013859600285441',
    pattern: WHATSAPP_MEDIA_ID.source,
    description:
      'An uploaded media id (`POST /v1/channels/whatsapp/{id}/media`). Send `media_id` or `link`.',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(WHATSAPP_MEDIA_ID, { message: '$property must be a WhatsApp media id (digits)' })
  media_id?: string;

  @ApiPropertyOptional({
    example: 'https://shop.example.com/images/blue-kettle.jpg',
    maxLength: 2048,
    description: 'An https URL Meta downloads the file from. Send `media_id` or `link`.',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @Matches(HTTPS_URL, { message: HTTPS_URL_MESSAGE })
  link?: string;

  @ApiPropertyOptional({
    maxLength: CAPTION_MAX,
    example: 'The blue kettle, back in stock.',
    description: 'Image, video and document only (Meta shows none on audio and stickers).',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(CAPTION_MAX)
  caption?: string;

  @ApiPropertyOptional({
    maxLength: 240,
    example: 'invoice-2041.pdf',
    description: 'Document only: the file name the client sees.',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(240)
  filename?: string;
}

/** A place on the map (Meta: latitude and longitude required, name and address optional). */
export class WhatsappLocationDto {
  @ApiProperty({ example: 40.4168, minimum: -90, maximum: 90 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-90)
  @Max(90)
  latitude!: number;

  @ApiProperty({ example: -3.7038, minimum: -180, maximum: 180 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-180)
  @Max(180)
  longitude!: number;

  @ApiPropertyOptional({ example: 'Agentline Store', maxLength: 1000 })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  name?: string;

  @ApiPropertyOptional({ example: 'Gran Vía 1, 28013 Madrid', maxLength: 1000 })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  address?: string;
}

const CONTACT_FIELD_MAX = 512;

/** Meta's contact `name`: `formatted_name` required. */
export class WhatsappContactNameDto {
  @ApiProperty({ example: 'Ana García' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(CONTACT_FIELD_MAX)
  formatted_name!: string;

  @ApiPropertyOptional({ example: 'Ana' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  first_name?: string;

  @ApiPropertyOptional({ example: 'García' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  last_name?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  middle_name?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  suffix?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  prefix?: string;
}

export class WhatsappContactPhoneDto {
  @ApiProperty({ example: '+34 612 345 678' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  phone!: string;

  @ApiPropertyOptional({ example: 'WORK', description: 'HOME, WORK, CELL, MAIN, IPHONE…' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  type?: string;

  @ApiPropertyOptional({ example: '34612345678', description: 'Their WhatsApp id (digits).' })
  @IsOptionalNotNull()
  @IsString()
  @Matches(/^\d{6,15}$/, { message: '$property must be a WhatsApp id (digits)' })
  wa_id?: string;
}

export class WhatsappContactEmailDto {
  @ApiProperty({ example: 'ana@example.com' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  email!: string;

  @ApiPropertyOptional({ example: 'WORK' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  type?: string;
}

export class WhatsappContactUrlDto {
  @ApiProperty({ example: 'https://example.com' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  url!: string;

  @ApiPropertyOptional({ example: 'WORK' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  type?: string;
}

export class WhatsappContactAddressDto {
  @ApiPropertyOptional({ example: 'Gran Vía 1' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  street?: string;

  @ApiPropertyOptional({ example: 'Madrid' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  city?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  state?: string;

  @ApiPropertyOptional({ example: '28013' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  zip?: string;

  @ApiPropertyOptional({ example: 'Spain' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  country?: string;

  @ApiPropertyOptional({ example: 'ES' })
  @IsOptionalNotNull()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: '$property must be a two-letter country code' })
  country_code?: string;

  @ApiPropertyOptional({ example: 'WORK' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  type?: string;
}

export class WhatsappContactOrgDto {
  @ApiPropertyOptional({ example: 'Agentline' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  company?: string;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  department?: string;

  @ApiPropertyOptional({ example: 'Support' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(CONTACT_FIELD_MAX)
  title?: string;
}

const MAX_CONTACT_ENTRIES = 20;

/** One contact card, as Meta's contacts message takes it. */
export class WhatsappContactDto {
  @ApiProperty({ type: WhatsappContactNameDto })
  @ValidateNested()
  @Type(() => WhatsappContactNameDto)
  name!: WhatsappContactNameDto;

  @ApiPropertyOptional({ type: [WhatsappContactPhoneDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_CONTACT_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => WhatsappContactPhoneDto)
  phones?: WhatsappContactPhoneDto[];

  @ApiPropertyOptional({ type: [WhatsappContactEmailDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_CONTACT_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => WhatsappContactEmailDto)
  emails?: WhatsappContactEmailDto[];

  @ApiPropertyOptional({ type: [WhatsappContactUrlDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_CONTACT_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => WhatsappContactUrlDto)
  urls?: WhatsappContactUrlDto[];

  @ApiPropertyOptional({ type: [WhatsappContactAddressDto] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_CONTACT_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => WhatsappContactAddressDto)
  addresses?: WhatsappContactAddressDto[];

  @ApiPropertyOptional({ type: WhatsappContactOrgDto })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappContactOrgDto)
  org?: WhatsappContactOrgDto;

  @ApiPropertyOptional({ example: '1990-05-17', description: 'YYYY-MM-DD.' })
  @IsOptionalNotNull()
  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: '$property must be a date as YYYY-MM-DD' })
  birthday?: string;
}

/** `{ text }` of an interactive body or footer. */
export class WhatsappInteractiveTextDto {
  @ApiProperty({ example: 'Which size would you like?', maxLength: INTERACTIVE_LIMITS.listBody })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.listBody)
  text!: string;
}

/** Meta's header media: `id` (uploaded) or `link`, exactly one. */
export class WhatsappHeaderMediaDto {
  @ApiPropertyOptional({ example: '1013859600285441', pattern: WHATSAPP_MEDIA_ID.source })
  @IsOptionalNotNull()
  @IsString()
  @Matches(WHATSAPP_MEDIA_ID, { message: '$property must be a WhatsApp media id (digits)' })
  id?: string;

  @ApiPropertyOptional({ example: 'https://shop.example.com/images/blue-kettle.jpg' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @Matches(HTTPS_URL, { message: HTTPS_URL_MESSAGE })
  link?: string;
}

export const INTERACTIVE_HEADER_TYPES = ['text', 'image', 'video', 'document'] as const;

/** An interactive header: text (lists: text only), or an image, video or document. */
export class WhatsappInteractiveHeaderDto {
  @ApiProperty({ enum: INTERACTIVE_HEADER_TYPES, example: 'image' })
  @IsIn(INTERACTIVE_HEADER_TYPES)
  type!: (typeof INTERACTIVE_HEADER_TYPES)[number];

  @ApiPropertyOptional({ maxLength: INTERACTIVE_LIMITS.header, example: 'Blue kettle' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.header)
  text?: string;

  @ApiPropertyOptional({ type: WhatsappHeaderMediaDto })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappHeaderMediaDto)
  image?: WhatsappHeaderMediaDto;

  @ApiPropertyOptional({ type: WhatsappHeaderMediaDto })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappHeaderMediaDto)
  video?: WhatsappHeaderMediaDto;

  @ApiPropertyOptional({ type: WhatsappHeaderMediaDto })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappHeaderMediaDto)
  document?: WhatsappHeaderMediaDto;
}

export class WhatsappReplyDto {
  @ApiProperty({ maxLength: INTERACTIVE_LIMITS.buttonId, example: 'size_m' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.buttonId)
  id!: string;

  @ApiProperty({ maxLength: INTERACTIVE_LIMITS.buttonTitle, example: 'Medium' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.buttonTitle)
  title!: string;
}

/** A reply button: `{ type: "reply", reply: { id, title } }`. */
export class WhatsappReplyButtonDto {
  @ApiProperty({ enum: ['reply'] })
  @IsIn(['reply'])
  type!: 'reply';

  @ApiProperty({ type: WhatsappReplyDto })
  @ValidateNested()
  @Type(() => WhatsappReplyDto)
  reply!: WhatsappReplyDto;
}

export class WhatsappListRowDto {
  @ApiProperty({ maxLength: INTERACTIVE_LIMITS.rowId, example: 'slot_mon_10' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.rowId)
  id!: string;

  @ApiProperty({ maxLength: INTERACTIVE_LIMITS.rowTitle, example: 'Monday 10:00' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.rowTitle)
  title!: string;

  @ApiPropertyOptional({ maxLength: INTERACTIVE_LIMITS.rowDescription, example: 'With Dr. Ruiz' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(INTERACTIVE_LIMITS.rowDescription)
  description?: string;
}

export class WhatsappListSectionDto {
  @ApiProperty({ maxLength: INTERACTIVE_LIMITS.sectionTitle, example: 'This week' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.sectionTitle)
  title!: string;

  @ApiProperty({ type: [WhatsappListRowDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(INTERACTIVE_LIMITS.rows)
  @ValidateNested({ each: true })
  @Type(() => WhatsappListRowDto)
  rows!: WhatsappListRowDto[];
}

export class WhatsappCtaUrlParametersDto {
  @ApiProperty({ maxLength: INTERACTIVE_LIMITS.ctaDisplayText, example: 'Track my order' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.ctaDisplayText)
  display_text!: string;

  @ApiProperty({ example: 'https://shop.example.com/orders/2041' })
  @IsString()
  @MaxLength(2048)
  @Matches(HTTPS_URL, { message: HTTPS_URL_MESSAGE })
  url!: string;
}

/**
 * The action, by interactive type: `buttons` (button), `button` and `sections` (list), or
 * `name: "cta_url"` and `parameters` (cta_url).
 */
export class WhatsappInteractiveActionDto {
  @ApiPropertyOptional({ type: [WhatsappReplyButtonDto], description: 'button: 1 to 3.' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(INTERACTIVE_LIMITS.buttons)
  @ValidateNested({ each: true })
  @Type(() => WhatsappReplyButtonDto)
  buttons?: WhatsappReplyButtonDto[];

  @ApiPropertyOptional({
    maxLength: INTERACTIVE_LIMITS.listButton,
    example: 'See times',
    description: 'list: the button that opens the list.',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(INTERACTIVE_LIMITS.listButton)
  button?: string;

  @ApiPropertyOptional({
    type: [WhatsappListSectionDto],
    description: 'list: 1 to 10 sections, 10 rows in all.',
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(INTERACTIVE_LIMITS.sections)
  @ValidateNested({ each: true })
  @Type(() => WhatsappListSectionDto)
  sections?: WhatsappListSectionDto[];

  @ApiPropertyOptional({ enum: ['cta_url'] })
  @IsOptionalNotNull()
  @IsIn(['cta_url'])
  name?: 'cta_url';

  @ApiPropertyOptional({ type: WhatsappCtaUrlParametersDto })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappCtaUrlParametersDto)
  parameters?: WhatsappCtaUrlParametersDto;
}

export const INTERACTIVE_TYPES = ['button', 'list', 'cta_url'] as const;
export type InteractiveType = (typeof INTERACTIVE_TYPES)[number];

/** Meta's interactive object for reply buttons, a list, or a call-to-action URL button. */
export class WhatsappInteractiveDto {
  @ApiProperty({ enum: INTERACTIVE_TYPES, example: 'button' })
  @IsIn(INTERACTIVE_TYPES)
  type!: InteractiveType;

  @ApiPropertyOptional({ type: WhatsappInteractiveHeaderDto })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappInteractiveHeaderDto)
  header?: WhatsappInteractiveHeaderDto;

  @ApiProperty({
    type: WhatsappInteractiveTextDto,
    description: 'At most 1024 characters (4096 for a list).',
  })
  @ValidateNested()
  @Type(() => WhatsappInteractiveTextDto)
  body!: WhatsappInteractiveTextDto;

  @ApiPropertyOptional({ type: WhatsappInteractiveTextDto, description: 'At most 60 characters.' })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappInteractiveTextDto)
  footer?: WhatsappInteractiveTextDto;

  @ApiProperty({ type: WhatsappInteractiveActionDto })
  @ValidateNested()
  @Type(() => WhatsappInteractiveActionDto)
  action!: WhatsappInteractiveActionDto;
}

/** An emoji on a message the client sent (`""` removes the business's reaction). */
export class WhatsappReactionDto {
  @ApiProperty({ example: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdCRDE2NEQ5RjQ2QzZBQjY3NQA=' })
  @IsString()
  @Matches(WAMID, { message: WAMID_MESSAGE })
  message_id!: string;

  @ApiProperty({ example: '👍', description: 'One emoji, or "" to remove the reaction.' })
  @IsString()
  @MaxLength(32)
  emoji!: string;
}

/** The rich message fields, in the order a send checks them (exactly one content field). */
export const WHATSAPP_MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type WhatsappMediaType = (typeof WHATSAPP_MEDIA_TYPES)[number];
export const WHATSAPP_RICH_FIELDS = [
  ...WHATSAPP_MEDIA_TYPES,
  'location',
  'contacts',
  'interactive',
  'reaction',
] as const;
export type WhatsappRichField = (typeof WHATSAPP_RICH_FIELDS)[number];

const ONE_OF = 'Send exactly one of `text`, `template` or a rich message field.';
const mediaField = (what: string) =>
  ApiPropertyOptional({ type: WhatsappMediaDto, description: `${what}. ${ONE_OF}` });

/**
 * What a WhatsApp send now may carry beside `text` and `template` (SendWhatsappMessageDto extends
 * it): one rich message, and `reply_to` on any of them.
 */
export class WhatsappRichFieldsDto {
  @mediaField('An image (JPEG or PNG, 5 MB at most), with an optional caption')
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappMediaDto)
  image?: WhatsappMediaDto;

  @mediaField('A video (MP4 or 3GPP, 16 MB at most), with an optional caption')
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappMediaDto)
  video?: WhatsappMediaDto;

  @mediaField('An audio file (AAC, AMR, MP3, M4A or OGG Opus, 16 MB at most); no caption')
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappMediaDto)
  audio?: WhatsappMediaDto;

  @mediaField(
    'A document (PDF, Office, text; 100 MB at most), with an optional caption and filename',
  )
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappMediaDto)
  document?: WhatsappMediaDto;

  @mediaField('A sticker (WebP: 100 KB static, 500 KB animated); no caption')
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappMediaDto)
  sticker?: WhatsappMediaDto;

  @ApiPropertyOptional({ type: WhatsappLocationDto, description: `A location pin. ${ONE_OF}` })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappLocationDto)
  location?: WhatsappLocationDto;

  @ApiPropertyOptional({
    type: [WhatsappContactDto],
    description: `Contact cards (1 to 10), as Meta's contacts objects. ${ONE_OF}`,
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => WhatsappContactDto)
  contacts?: WhatsappContactDto[];

  @ApiPropertyOptional({
    type: WhatsappInteractiveDto,
    description: `Reply buttons, a list, or a call-to-action URL button (inside the 24-hour window). ${ONE_OF}`,
  })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappInteractiveDto)
  interactive?: WhatsappInteractiveDto;

  @ApiPropertyOptional({
    type: WhatsappReactionDto,
    description: `An emoji reaction to a message the client sent (its item's message_id). ${ONE_OF}`,
  })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => WhatsappReactionDto)
  reaction?: WhatsappReactionDto;

  @ApiPropertyOptional({
    example: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdCRDE2NEQ5RjQ2QzZBQjY3NQA=',
    description:
      "Quote this message (an inbound item's message_id): Meta's `context.message_id`. With text or a rich message; not with a reaction or a template.",
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(WAMID, { message: WAMID_MESSAGE })
  reply_to?: string;
}
