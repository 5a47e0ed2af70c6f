import { ToolExecutionError } from '../tools';

/**
 * The send tools' flat parameters (catalog/toolkits/agentline.json: one level, every optional one
 * nullable, so that OpenAI's strict mode can fill them) turned into the send-now request bodies
 * the HTTP API takes; the same DTO then checks them. A model fills titles only: a button's or
 * row's id, and a quick reply's payload, is its title, which comes back when the person taps it.
 */
type ToolInput = Record<string, unknown>;

const has = (input: ToolInput, name: string) => input[name] !== undefined;

/** The fields of the input that are given, under other names (undefined ones left out). */
function pick(input: ToolInput, names: Record<string, string>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(names)) {
    if (has(input, from)) picked[to] = input[from];
  }
  return picked;
}

/** Parameters that only mean something beside another one: a model that fills them alone is told. */
const NEEDS: Record<string, string[]> = {
  media_type: ['media_id', 'media_link', 'caption', 'filename'],
  latitude: ['location_name', 'location_address'],
  list_rows: ['list_button'],
  cta_url: ['cta_display_text'],
  contact_name: ['contact_phone'],
  attachment_type: ['attachment_url', 'attachment_id'],
};

function checkCompanions(input: ToolInput): void {
  for (const [owner, companions] of Object.entries(NEEDS)) {
    const stray = companions.find((name) => has(input, name) && !has(input, owner));
    if (stray) throw new ToolExecutionError(`${stray} goes with ${owner}, which is missing.`);
  }
  const framed = ['header_text', 'footer_text'].find((name) => has(input, name));
  if (framed && !['buttons', 'list_rows', 'cta_url'].some((name) => has(input, name))) {
    throw new ToolExecutionError(`${framed} goes with buttons, list_rows or cta_url.`);
  }
}

const titles = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((item) => String(item)) : [];

/** The interactive object for buttons, a list or a link button, with `text` as its body. */
function interactive(input: ToolInput): Record<string, unknown> | undefined {
  const kinds = ['buttons', 'list_rows', 'cta_url'].filter((name) => has(input, name));
  if (kinds.length === 0) return undefined;
  if (kinds.length > 1) {
    throw new ToolExecutionError(`Send ${kinds.join(' or ')}, one at a time.`);
  }
  if (!has(input, 'text')) {
    throw new ToolExecutionError(`text is required: it is the message above the ${kinds[0]}.`);
  }
  const action =
    kinds[0] === 'buttons'
      ? {
          type: 'button',
          action: {
            buttons: titles(input.buttons).map((title) => ({
              type: 'reply',
              reply: { id: title, title },
            })),
          },
        }
      : kinds[0] === 'list_rows'
        ? {
            type: 'list',
            action: {
              button: input.list_button,
              // Meta asks every section for a title: the list's one is its button's text.
              sections: [
                {
                  title: input.list_button,
                  rows: titles(input.list_rows).map((title) => ({ id: title, title })),
                },
              ],
            },
          }
        : {
            type: 'cta_url',
            action: {
              name: 'cta_url',
              parameters: { display_text: input.cta_display_text, url: input.cta_url },
            },
          };
  return {
    ...action,
    ...(has(input, 'header_text') && { header: { type: 'text', text: input.header_text } }),
    body: { text: input.text },
    ...(has(input, 'footer_text') && { footer: { text: input.footer_text } }),
  };
}

/** Agentline.SendWhatsappMessage's input as `POST /v1/channels/whatsapp/{id}/messages` takes it. */
export function whatsappToolBody(input: ToolInput): Record<string, unknown> {
  checkCompanions(input);
  const body: Record<string, unknown> = pick(input, { to: 'to', reply_to: 'reply_to' });
  const rich = interactive(input);
  if (rich) body.interactive = rich;
  else if (has(input, 'text')) body.text = input.text;
  if (has(input, 'media_type')) {
    body[String(input.media_type)] = pick(input, {
      media_id: 'media_id',
      media_link: 'link',
      caption: 'caption',
      filename: 'filename',
    });
  }
  if (has(input, 'latitude') || has(input, 'longitude')) {
    body.location = pick(input, {
      latitude: 'latitude',
      longitude: 'longitude',
      location_name: 'name',
      location_address: 'address',
    });
  }
  if (has(input, 'contact_name')) {
    body.contacts = [
      {
        name: contactName(String(input.contact_name)),
        ...(has(input, 'contact_phone') && { phones: [{ phone: input.contact_phone }] }),
      },
    ];
  }
  if (has(input, 'reaction_message_id') || has(input, 'reaction_emoji')) {
    body.reaction = pick(input, { reaction_message_id: 'message_id', reaction_emoji: 'emoji' });
  }
  return body;
}

/**
 * Meta's contacts `name`: the formatted name and at least one part of it. The tool takes one
 * name: its first word is the first name, the rest (if any) the last name.
 */
function contactName(name: string): Record<string, string> {
  const [first, ...rest] = name.trim().split(/\s+/);
  return {
    formatted_name: name,
    first_name: first,
    ...(rest.length > 0 && { last_name: rest.join(' ') }),
  };
}

/** Agentline.SendMessangerMessage's input as `POST /v1/channels/messanger/{id}/messages` takes it. */
export function messangerToolBody(input: ToolInput): Record<string, unknown> {
  checkCompanions(input);
  const body = pick(input, { to: 'to', text: 'text', tag: 'tag' });
  if (has(input, 'quick_replies')) {
    body.quick_replies = titles(input.quick_replies).map((title) => ({
      content_type: 'text',
      title,
      payload: title,
    }));
  }
  if (has(input, 'attachment_type')) {
    body.attachment = pick(input, {
      attachment_type: 'type',
      attachment_url: 'url',
      attachment_id: 'attachment_id',
    });
  }
  return body;
}
