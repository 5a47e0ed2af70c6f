import { validationFailed } from '../../../common/http/problem';
import type { RichMessage } from '../../channel-transport';
import type {
  MessangerAttachmentDto,
  MessangerQuickReplyDto,
  MessangerRichFieldsDto,
  MessangerTag,
} from './messanger-message.dto';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Meta's HUMAN_AGENT tag: a person may answer up to 7 days after the user's last message. */
export const HUMAN_AGENT_WINDOW_MS = 7 * DAY_MS;

const refuse = (field: string, message: string): never => {
  throw validationFailed([{ field, message }], `${field}: ${message}`);
};

const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The rich message a Messenger send now carries (quick replies, an attachment or a tag), checked
 * against Meta's rules between fields; undefined for plain text. `text` or `attachment`, exactly
 * one; quick replies only with text.
 */
export function messangerRichMessage(
  dto: MessangerRichFieldsDto & { text?: string },
): RichMessage | undefined {
  if ((dto.text === undefined) === (dto.attachment === undefined)) {
    refuse(dto.text === undefined ? 'text' : 'attachment', 'send text or attachment, exactly one');
  }
  const tag = dto.tag === undefined ? {} : { tag: dto.tag };
  if (dto.attachment !== undefined) {
    if (dto.quick_replies !== undefined) {
      refuse('quick_replies', 'agentline sends quick replies with text only');
    }
    checkAttachment(dto.attachment);
    return { type: 'attachment', attachment: plain(dto.attachment), ...tag };
  }
  if (dto.quick_replies === undefined && dto.tag === undefined) return undefined;
  dto.quick_replies?.forEach(checkQuickReply);
  return {
    type: 'text',
    text: dto.text,
    ...(dto.quick_replies !== undefined && { quick_replies: plain(dto.quick_replies) }),
    ...tag,
  };
}

function checkAttachment(attachment: MessangerAttachmentDto): void {
  if ((attachment.url === undefined) === (attachment.attachment_id === undefined)) {
    refuse('attachment.url', 'send url or attachment_id, exactly one');
  }
  if (attachment.is_reusable !== undefined && attachment.url === undefined) {
    refuse('attachment.is_reusable', 'only a url can be saved for reuse');
  }
}

function checkQuickReply(reply: MessangerQuickReplyDto, index: number): void {
  const at = `quick_replies.${index}`;
  if (reply.content_type === 'text') {
    if (reply.title === undefined) refuse(`${at}.title`, 'required for a text quick reply');
    if (reply.payload === undefined) refuse(`${at}.payload`, 'required for a text quick reply');
    return;
  }
  for (const field of ['title', 'payload', 'image_url'] as const) {
    if (reply[field] !== undefined)
      refuse(`${at}.${field}`, `not part of a ${reply.content_type} quick reply`);
  }
}

/**
 * Whether a tagged message may go now, outside the 24-hour window: undefined if it may, else why
 * not. HUMAN_AGENT only within 7 days of the person's last message; the update tags any time.
 */
export function tagRefusal(
  tag: MessangerTag,
  lastInboundAt: number | null,
  now: number,
): string | undefined {
  if (tag !== 'HUMAN_AGENT') return undefined;
  if (lastInboundAt !== null && now - lastInboundAt < HUMAN_AGENT_WINDOW_MS) return undefined;
  return 'The HUMAN_AGENT tag only answers a person within 7 days of their last message to the page.';
}

/**
 * Meta's Send API body for a rich message: `messaging_type: MESSAGE_TAG` with `tag` when tagged
 * (else RESPONSE); `message.text` with `quick_replies`, or `message.attachment` with
 * `payload.url` (and `is_reusable`) or `payload.attachment_id`.
 */
export function messangerRichPayload(to: string, content: RichMessage): object {
  const tag = typeof content.tag === 'string' ? content.tag : undefined;
  const attachment = content.attachment as MessangerAttachmentDto | undefined;
  const message = attachment
    ? {
        attachment: {
          type: attachment.type,
          payload:
            attachment.attachment_id !== undefined
              ? { attachment_id: attachment.attachment_id }
              : {
                  url: attachment.url,
                  ...(attachment.is_reusable !== undefined && {
                    is_reusable: attachment.is_reusable,
                  }),
                },
        },
      }
    : {
        text: content.text,
        ...(content.quick_replies !== undefined && { quick_replies: content.quick_replies }),
      };
  return {
    recipient: { id: to },
    messaging_type: tag ? 'MESSAGE_TAG' : 'RESPONSE',
    ...(tag && { tag }),
    message,
  };
}
