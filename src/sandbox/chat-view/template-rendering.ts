/**
 * A template message as the client's phone shows it: the catalog's text (Meta's components, as
 * `GET /{waba_id}/message_templates` lists them) with the send's parameters in place of its
 * `{{1}}` or `{{name}}` placeholders. Pure, so that the chat view's server renders and a unit spec
 * checks it.
 */
export interface RenderedTemplate {
  name: string;
  language: string;
  /** False when the catalog does not have the template: the page lists the parameters as sent. */
  found: boolean;
  header?: RenderedHeader;
  body?: string;
  footer?: string;
  buttons: RenderedButton[];
  /** Every parameter of the send, in order, as text (what the page shows when `found` is false). */
  parameters: string[];
}

export interface RenderedHeader {
  /** `text`, or Meta's media/location format in lower case (`image`, `document`, `location`...). */
  format: string;
  text?: string;
  /** The media the send gave (`id` or `link`), for a header that is an image, video or document. */
  media?: { id?: string; link?: string; filename?: string };
  location?: { latitude?: number; longitude?: number; name?: string; address?: string };
}

export interface RenderedButton {
  /** Meta's button type in lower case: `quick_reply`, `url`, `phone_number`, `copy_code`... */
  type: string;
  text: string;
  /** A URL button's address, its `{{1}}` suffix filled. */
  url?: string;
  /** A copy-code button's code. */
  code?: string;
}

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

/** One sent parameter: its name (named templates) and what the phone shows for it. */
interface SentParameter {
  name?: string;
  text: string;
  raw: Json;
}

/** What a parameter reads as: its text, a currency's or a date's fallback, a payload, a code. */
function parameterText(parameter: Json): string {
  const type = asText(parameter.type) ?? 'text';
  const inner = asObject(parameter[type]);
  return (
    asText(parameter.text) ??
    asText(inner.fallback_value) ??
    asText(parameter.payload) ??
    asText(parameter.coupon_code) ??
    asText(inner.link) ??
    asText(inner.id) ??
    `[${type}]`
  );
}

function sentParameters(component: Json): SentParameter[] {
  return asList(component.parameters).map((item) => {
    const raw = asObject(item);
    return { name: asText(raw.parameter_name), text: parameterText(raw), raw };
  });
}

/** `{{1}}` takes the first parameter, `{{name}}` the one with that parameter_name; others stay. */
function fillPlaceholders(text: string, parameters: readonly SentParameter[]): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (whole, key: string) => {
    const found = /^\d+$/.test(key)
      ? parameters[Number(key) - 1]
      : parameters.find((parameter) => parameter.name === key);
    return found ? found.text : whole;
  });
}

/**
 * Renders the `template` object of a WhatsApp send (`{ name, language: { code }, components }`)
 * with the catalog's components for that name and language, or undefined when it has none.
 */
export function renderTemplate(
  template: Json,
  catalogComponents: readonly unknown[] | undefined,
): RenderedTemplate {
  const sent = asList(template.components).map(asObject);
  const sentOf = (type: string) => sent.find((component) => asText(component.type) === type);
  const body = sentParameters(sentOf('body') ?? {});
  const header = sentParameters(sentOf('header') ?? {});
  const buttonParameters = (index: number) =>
    sentParameters(
      sent.find(
        (component) =>
          asText(component.type) === 'button' && Number(asText(component.index)) === index,
      ) ?? {},
    );
  const rendered: RenderedTemplate = {
    name: asText(template.name) ?? '',
    language: asText(asObject(template.language).code) ?? '',
    found: catalogComponents !== undefined,
    buttons: [],
    parameters: sent.flatMap((component) => sentParameters(component).map((p) => p.text)),
  };
  for (const item of catalogComponents ?? []) {
    const component = asObject(item);
    const type = asText(component.type)?.toUpperCase();
    const text = asText(component.text);
    if (type === 'HEADER') rendered.header = renderHeader(component, header);
    else if (type === 'BODY' && text !== undefined) rendered.body = fillPlaceholders(text, body);
    else if (type === 'FOOTER' && text !== undefined) rendered.footer = text;
    else if (type === 'BUTTONS') {
      rendered.buttons = asList(component.buttons).map((button, index) =>
        renderButton(asObject(button), buttonParameters(index)),
      );
    }
  }
  return rendered;
}

function renderHeader(component: Json, parameters: readonly SentParameter[]): RenderedHeader {
  const format = (asText(component.format) ?? 'TEXT').toLowerCase();
  const text = asText(component.text);
  if (format === 'text') return { format, text: text && fillPlaceholders(text, parameters) };
  const given = parameters[0]?.raw ?? {};
  if (format === 'location') {
    const location = asObject(given.location);
    return {
      format,
      location: {
        latitude: Number(location.latitude),
        longitude: Number(location.longitude),
        name: asText(location.name),
        address: asText(location.address),
      },
    };
  }
  const media = asObject(given[format]);
  return {
    format,
    media: { id: asText(media.id), link: asText(media.link), filename: asText(media.filename) },
  };
}

function renderButton(button: Json, parameters: readonly SentParameter[]): RenderedButton {
  const type = (asText(button.type) ?? 'quick_reply').toLowerCase();
  const rendered: RenderedButton = { type, text: asText(button.text) ?? '' };
  const url = asText(button.url);
  if (url !== undefined) rendered.url = fillPlaceholders(url, parameters);
  if (type === 'copy_code' && parameters[0]) rendered.code = parameters[0].text;
  return rendered;
}
