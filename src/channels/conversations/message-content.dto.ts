import { ApiProperty } from '@nestjs/swagger';

/*
 * An inbound message's `content`, one class per shape (docs/webhooks.md, "content by type"), as
 * the notification parsers build it. FakeAgentEndpoint checks every message the e2e suites
 * receive against these, so a parser that changes a shape fails there.
 */

const nullableString = (description?: string, example?: string) =>
  ApiProperty({ type: String, nullable: true, description, example });

/** `image`, `video`, `audio`, `document`, `sticker`. */
export class WhatsappMediaContentDto {
  @nullableString("Meta's media id.", '1013859600285441') media_id!: string | null;
  @nullableString(undefined, 'image/jpeg') mime_type!: string | null;
  @nullableString() sha256!: string | null;
  @nullableString('A document’s file name.') filename!: string | null;
  @nullableString() caption!: string | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'An audio that is a voice note.' })
  voice!: boolean | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'An animated sticker.' })
  animated!: boolean | null;
  @nullableString(
    "agentline's download URL (GET /v1/channels/whatsapp/{id}/media/{media_id}), with the channel's token.",
  )
  url!: string | null;
}

/** `location`. */
export class WhatsappLocationContentDto {
  @ApiProperty({ type: Number, nullable: true, example: 40.4168 }) latitude!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: -3.7038 }) longitude!: number | null;
  @nullableString() name!: string | null;
  @nullableString() address!: string | null;
  @nullableString() url!: string | null;
}

/** `interactive`: a reply button, a list row or a Flow's answers. */
export class WhatsappInteractiveContentDto {
  @nullableString('`button_reply`, `list_reply` or `nfm_reply` (a Flow).', 'button_reply')
  reply_type!: string | null;
  @nullableString('The id the business gave the button or row.', 'size_l') reply_id!: string | null;
  @nullableString(undefined, 'Large') title!: string | null;
  @nullableString() description!: string | null;
  @nullableString("A Flow's answers: the JSON string Meta sends.") response_json!: string | null;
}

/** `button`: a template's quick reply. */
export class WhatsappButtonContentDto {
  @nullableString() payload!: string | null;
  @nullableString() title!: string | null;
}

/** `reaction`: `emoji` null when the reaction is removed. */
export class WhatsappReactionContentDto {
  @nullableString(undefined, '👍') emoji!: string | null;
  @nullableString('The message reacted to.') message_id!: string | null;
}

/** `contacts`: the cards as Meta sends them. */
export class WhatsappContactsContentDto {
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  contacts!: Record<string, unknown>[];
}

/** `order`: products from a catalog, as Meta sends them. */
export class WhatsappOrderContentDto {
  @nullableString() catalog_id!: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  product_items!: unknown[];
}

/** `system`: a changed number or user id. */
export class WhatsappSystemContentDto {
  @nullableString(undefined, 'user_changed_number') type!: string | null;
  @nullableString() body!: string | null;
  @nullableString('The new number (E.164).') wa_id!: string | null;
  @nullableString('The new business-scoped user id.') user_id!: string | null;
}

/** `edit`: the client edited a message. */
export class WhatsappEditContentDto {
  @nullableString() original_message_id!: string | null;
  @nullableString('The new text (or caption).') text!: string | null;
}

/** `revoke`: the client deleted a message. */
export class WhatsappRevokeContentDto {
  @nullableString() original_message_id!: string | null;
}

export class MessangerCoordinatesDto {
  @ApiProperty({ type: Number, nullable: true }) lat!: number | null;
  @ApiProperty({ type: Number, nullable: true }) long!: number | null;
}

export class MessangerInboundAttachmentDto {
  @nullableString('image, video, audio, file, location, fallback, ...', 'image')
  type!: string | null;
  @nullableString("Meta's URL of the file (public; agentline does not proxy it).")
  url!: string | null;
  @nullableString() title!: string | null;
  @nullableString() sticker_id!: string | null;
  @ApiProperty({ type: MessangerCoordinatesDto, nullable: true })
  coordinates!: MessangerCoordinatesDto | null;
}

/** Messenger attachments (the message's `type` is the first one's). */
export class MessangerAttachmentsContentDto {
  @ApiProperty({ type: [MessangerInboundAttachmentDto] })
  attachments!: MessangerInboundAttachmentDto[];
}

/** Messenger `quick_reply`. */
export class MessangerQuickReplyContentDto {
  @nullableString() payload!: string | null;
}

/** Messenger `postback` (Get Started, a button, a menu item). */
export class MessangerPostbackContentDto {
  @nullableString() title!: string | null;
  @nullableString() payload!: string | null;
}

/** Messenger `reaction`: `action` is `react` or `unreact`. */
export class MessangerReactionContentDto {
  @nullableString(undefined, '❤') emoji!: string | null;
  @nullableString(undefined, 'react') action!: string | null;
  @nullableString('The message reacted to.') message_id!: string | null;
}

/** Every shape of `content`, for the schema's `anyOf` (two shapes may be alike: a button, a postback). */
export const MESSAGE_CONTENTS = [
  WhatsappMediaContentDto,
  WhatsappLocationContentDto,
  WhatsappInteractiveContentDto,
  WhatsappButtonContentDto,
  WhatsappReactionContentDto,
  WhatsappContactsContentDto,
  WhatsappOrderContentDto,
  WhatsappSystemContentDto,
  WhatsappEditContentDto,
  WhatsappRevokeContentDto,
  MessangerAttachmentsContentDto,
  MessangerQuickReplyContentDto,
  MessangerPostbackContentDto,
  MessangerReactionContentDto,
];
