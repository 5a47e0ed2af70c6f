import type { RichMessage } from '../../channel-transport';
import { WHATSAPP_MEDIA_TYPES } from './whatsapp-message.dto';
import type { WhatsappMediaDto } from './whatsapp-message.dto';

const isMediaType = (type: string): type is (typeof WHATSAPP_MEDIA_TYPES)[number] =>
  (WHATSAPP_MEDIA_TYPES as readonly string[]).includes(type);

/**
 * Meta's media object: `id` (an uploaded media id) or `link`, with `caption` (image, video,
 * document) and `filename` (document) as given ("Image messages", "Document messages", …).
 */
function mediaObject(media: WhatsappMediaDto): object {
  return {
    ...(media.media_id !== undefined ? { id: media.media_id } : { link: media.link }),
    ...(media.caption !== undefined && { caption: media.caption }),
    ...(media.filename !== undefined && { filename: media.filename }),
  };
}

/**
 * The type-specific part of the Cloud API's send-message body for a rich message (as
 * whatsapp-rich.content.ts stored it), and `context.message_id` for a quoted reply. Location,
 * contacts, interactive and reaction objects are stored in Meta's own shape and go as they are.
 */
export function whatsappRichPayload(content: RichMessage): object {
  const { type } = content;
  const context =
    typeof content.reply_to === 'string' ? { context: { message_id: content.reply_to } } : {};
  if (type === 'text') {
    return { ...context, type, text: { body: content.text, preview_url: false } };
  }
  if (isMediaType(type)) {
    return { ...context, type, [type]: mediaObject(content[type] as WhatsappMediaDto) };
  }
  return { ...context, type, [type]: content[type] };
}
