import { FieldError, validationFailed } from '../../../common/http/problem';
import type { RichMessage } from '../../channel-transport';
import {
  INTERACTIVE_LIMITS,
  WHATSAPP_RICH_FIELDS,
  WhatsappInteractiveDto,
  WhatsappMediaDto,
  WhatsappMediaType,
  WhatsappRichFieldsDto,
} from './whatsapp-message.dto';

/** A WhatsApp send now as its request reads: the rich fields, and text or a template. */
export type WhatsappSendFields = WhatsappRichFieldsDto & { text?: string; template?: unknown };

/** Meta shows a caption on these media only (its image, video and document guides). */
const CAPTIONED: readonly WhatsappMediaType[] = ['image', 'video', 'document'];

const refuse = (field: string, message: string): never => {
  throw validationFailed([{ field, message }], `${field}: ${message}`);
};

/** A plain copy of a validated DTO (no class prototypes), as the delivery's jsonb keeps it. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The rich message a WhatsApp send now carries, checked against Meta's rules between fields
 * (each refusal a 400 naming the field); undefined for plain text or a template. Exactly one of
 * `text`, `template` and the rich fields; `reply_to` quotes a message with any but a reaction
 * and a template.
 */
export function whatsappRichMessage(dto: WhatsappSendFields): RichMessage | undefined {
  const given = (['text', 'template', ...WHATSAPP_RICH_FIELDS] as const).filter(
    (field) => dto[field] !== undefined,
  );
  if (given.length !== 1) {
    refuse(
      given[1] ?? 'text',
      `send exactly one of text, template, ${WHATSAPP_RICH_FIELDS.join(', ')}`,
    );
  }
  const [field] = given;
  const replyTo = dto.reply_to === undefined ? {} : { reply_to: dto.reply_to };
  switch (field) {
    case 'text':
      return dto.reply_to === undefined ? undefined : { type: 'text', text: dto.text, ...replyTo };
    case 'template':
      if (dto.reply_to !== undefined) {
        refuse(
          'reply_to',
          'a template goes without a quoted message; quote with text or a rich message',
        );
      }
      return undefined;
    case 'reaction':
      if (dto.reply_to !== undefined) {
        refuse('reply_to', 'a reaction names its message in reaction.message_id');
      }
      checkEmoji(dto.reaction?.emoji ?? '');
      return { type: 'reaction', reaction: plain(dto.reaction) };
    case 'interactive':
      checkInteractive(dto.interactive as WhatsappInteractiveDto);
      return { type: 'interactive', interactive: plain(dto.interactive), ...replyTo };
    case 'contacts':
      checkContactNames(dto.contacts ?? []);
      return { type: field, [field]: plain(dto[field]), ...replyTo };
    case 'location':
      return { type: field, [field]: plain(dto[field]), ...replyTo };
    default:
      checkMedia(field, dto[field] as WhatsappMediaDto);
      return { type: field, [field]: plain(dto[field]), ...replyTo };
  }
}

/** The parts of a contact's name Meta asks at least one of, beside `formatted_name`. */
const NAME_PARTS = ['first_name', 'last_name', 'middle_name', 'suffix', 'prefix'] as const;
type NamePart = (typeof NAME_PARTS)[number];

/**
 * Meta's contacts `name` object: `formatted_name` and at least one other part ("At least one of
 * the optional parameters needs to be included along with the formatted_name parameter").
 */
function checkContactNames(contacts: { name: Partial<Record<NamePart, string>> }[]): void {
  contacts.forEach((contact, index) => {
    if (!NAME_PARTS.some((part) => contact.name[part] !== undefined)) {
      refuse(
        `contacts.${index}.name`,
        `give one of ${NAME_PARTS.join(', ')} beside formatted_name (Meta asks at least one)`,
      );
    }
  });
}

function checkMedia(type: WhatsappMediaType, media: WhatsappMediaDto): void {
  if ((media.media_id === undefined) === (media.link === undefined)) {
    refuse(`${type}.media_id`, 'send media_id (an uploaded file) or link, exactly one');
  }
  if (media.caption !== undefined && !CAPTIONED.includes(type)) {
    refuse(
      `${type}.caption`,
      `Meta sends no caption with ${type === 'audio' ? 'audio' : 'a sticker'}`,
    );
  }
  if (media.filename !== undefined && type !== 'document') {
    refuse(`${type}.filename`, 'only a document has a filename');
  }
}

/** One emoji (a single grapheme with a pictograph or a flag), or '' to remove the reaction. */
function checkEmoji(emoji: string): void {
  if (emoji === '') return;
  const graphemes = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(emoji)];
  if (graphemes.length !== 1 || !/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(emoji)) {
    refuse('reaction.emoji', 'must be one emoji, or "" to remove the reaction');
  }
}

const BODY_MAX = {
  button: INTERACTIVE_LIMITS.buttonBody,
  list: INTERACTIVE_LIMITS.listBody,
  cta_url: INTERACTIVE_LIMITS.ctaBody,
} as const;

/** The action fields each interactive type takes (Meta's button, list and cta_url guides). */
const ACTION_FIELDS = {
  button: ['buttons'],
  list: ['button', 'sections'],
  cta_url: ['name', 'parameters'],
} as const;
const ALL_ACTION_FIELDS = ['buttons', 'button', 'sections', 'name', 'parameters'] as const;

function checkInteractive(interactive: WhatsappInteractiveDto): void {
  const { type, body, footer, header, action } = interactive;
  if (body.text.length > BODY_MAX[type]) {
    refuse('interactive.body.text', `must be at most ${BODY_MAX[type]} characters for ${type}`);
  }
  if (footer && footer.text.length > INTERACTIVE_LIMITS.footer) {
    refuse('interactive.footer.text', `must be at most ${INTERACTIVE_LIMITS.footer} characters`);
  }
  if (header) checkHeader(type, header);
  const wanted: readonly string[] = ACTION_FIELDS[type];
  for (const field of ALL_ACTION_FIELDS) {
    const present = action[field] !== undefined;
    if (present !== wanted.includes(field)) {
      refuse(
        `interactive.action.${field}`,
        present ? `not part of a ${type} action` : `required for ${type}`,
      );
    }
  }
  if (type === 'button') {
    const buttons = action.buttons ?? [];
    unique(
      buttons.map((b) => b.reply.id),
      (i) => `interactive.action.buttons.${i}.reply.id`,
    );
    unique(
      buttons.map((b) => b.reply.title),
      (i) => `interactive.action.buttons.${i}.reply.title`,
    );
  }
  if (type === 'list') checkSections(action.sections ?? []);
}

function checkHeader(
  type: WhatsappInteractiveDto['type'],
  header: NonNullable<WhatsappInteractiveDto['header']>,
): void {
  if (type === 'list' && header.type !== 'text') {
    refuse('interactive.header.type', 'a list header is text only');
  }
  for (const field of ['text', 'image', 'video', 'document'] as const) {
    if ((header[field] !== undefined) !== (header.type === field)) {
      refuse(
        `interactive.header.${field}`,
        header.type === field
          ? `required for a ${field} header`
          : `not part of a ${header.type} header`,
      );
    }
  }
  if (header.type !== 'text') {
    const media = header[header.type] ?? {};
    if ((media.id === undefined) === (media.link === undefined)) {
      refuse(
        `interactive.header.${header.type}.id`,
        'send id (an uploaded file) or link, exactly one',
      );
    }
  }
}

function checkSections(sections: NonNullable<WhatsappInteractiveDto['action']['sections']>): void {
  const rows = sections.flatMap((section) => section.rows);
  if (rows.length > INTERACTIVE_LIMITS.rows) {
    refuse(
      'interactive.action.sections',
      `a list has at most ${INTERACTIVE_LIMITS.rows} rows in all its sections`,
    );
  }
  const paths = sections.flatMap((section, s) =>
    section.rows.map((_row, r) => `interactive.action.sections.${s}.rows.${r}.id`),
  );
  unique(
    rows.map((row) => row.id),
    (i) => paths[i],
  );
}

/** Meta refuses two buttons (or rows) with the same id, and two buttons with the same title. */
function unique(values: string[], path: (index: number) => string): void {
  const errors: FieldError[] = [];
  values.forEach((value, index) => {
    if (values.indexOf(value) !== index)
      errors.push({ field: path(index), message: 'must be unique' });
  });
  if (errors.length > 0) throw validationFailed(errors, `${errors[0].field}: must be unique`);
}
