import { ToolExecutionError } from '../tools';

/**
 * ScheduleFollowUp's flat template parameters (catalog/toolkits/agentline.json: one level, every
 * optional one nullable, so that OpenAI's strict mode can fill them) turned into the follow-up's
 * `template` as the HTTP API takes it; CreateFollowUpDto then checks it, and the channel's
 * catalog after that. Named values and buttons are strings a model writes easily:
 * `first_name=Ana` and `0:url:spring-sale`.
 */
type ToolInput = Record<string, unknown>;

/** The tool's template parameters, by the template field each becomes. */
const TEMPLATE_PARAMETERS = [
  'template_name',
  'template_language',
  'template_parameters',
  'template_named_parameters',
  'template_header_type',
  'template_header_text',
  'template_header_parameter_name',
  'template_header_media_id',
  'template_header_link',
  'template_header_latitude',
  'template_header_longitude',
  'template_header_location_name',
  'template_header_location_address',
  'template_buttons',
] as const;

const BUTTON = /^(\d+):([a-z_]+):([\s\S]+)$/;
const NAMED = /^([^=]+)=([\s\S]*)$/;

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((item) => String(item)) : [];

/** `name=value` items as `{ name: value }`; a model told which item is wrong otherwise. */
function namedParameters(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const named: Record<string, string> = {};
  for (const item of strings(value)) {
    const match = NAMED.exec(item);
    if (!match) {
      throw new ToolExecutionError(
        `template_named_parameters item "${item}" must be name=value, e.g. first_name=Ana.`,
      );
    }
    named[match[1].trim()] = match[2];
  }
  return named;
}

/** `index:sub_type:parameter` items as the template's buttons. */
function buttons(value: unknown): Record<string, unknown>[] | undefined {
  if (value === undefined) return undefined;
  return strings(value).map((item) => {
    const match = BUTTON.exec(item);
    if (!match) {
      throw new ToolExecutionError(
        `template_buttons item "${item}" must be index:sub_type:parameter, e.g. 0:url:spring-sale.`,
      );
    }
    return { index: Number(match[1]), sub_type: match[2], parameter: match[3] };
  });
}

function header(input: ToolInput): Record<string, unknown> | undefined {
  const type = input.template_header_type;
  const location =
    input.template_header_latitude !== undefined || input.template_header_longitude !== undefined
      ? {
          latitude: input.template_header_latitude,
          longitude: input.template_header_longitude,
          name: input.template_header_location_name,
          address: input.template_header_location_address,
        }
      : undefined;
  const fields = {
    type,
    text: input.template_header_text,
    parameter_name: input.template_header_parameter_name,
    media_id: input.template_header_media_id,
    link: input.template_header_link,
    location,
  };
  const given = Object.entries(fields).filter(([, value]) => value !== undefined);
  if (given.length === 0) return undefined;
  if (type === undefined) {
    throw new ToolExecutionError(
      `${given.map(([name]) => `template_header_${name}`).join(', ')} go with template_header_type, which is missing.`,
    );
  }
  return Object.fromEntries(given);
}

/**
 * The follow-up's body: the tool's input without its template parameters, and `template` built
 * from them when any is given (a template needs its name and language).
 */
export function followUpToolBody(input: ToolInput): ToolInput {
  const body = Object.fromEntries(
    Object.entries(input).filter(
      ([name]) => !(TEMPLATE_PARAMETERS as readonly string[]).includes(name),
    ),
  );
  const given = TEMPLATE_PARAMETERS.filter((name) => input[name] !== undefined);
  if (given.length === 0) return body;
  if (input.template_name === undefined || input.template_language === undefined) {
    throw new ToolExecutionError(
      `${given.join(', ')} need template_name and template_language, the template's name and language.`,
    );
  }
  const template = Object.fromEntries(
    Object.entries({
      name: input.template_name,
      language: input.template_language,
      parameters: input.template_parameters,
      named_parameters: namedParameters(input.template_named_parameters),
      header: header(input),
      buttons: buttons(input.template_buttons),
    }).filter(([, value]) => value !== undefined),
  );
  return { ...body, template };
}
