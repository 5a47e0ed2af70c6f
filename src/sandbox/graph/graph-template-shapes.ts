/**
 * The template of a Cloud API send, checked as Meta documents it ("Send message templates" and the
 * messages reference's template, component and parameter objects): at most one header and one
 * body, each with parameters; header parameters of type text (60 characters), image, video,
 * document (`id` or `link`, not both) or location; body parameters of type text (1,024
 * characters, no new line, tab or more than four spaces in a row; all with `parameter_name` or
 * none), currency or date_time; button components `{ type: "button", sub_type, index, parameters }`
 * whose one parameter is `text` (url), `payload` (quick_reply), `coupon_code` (copy_code, 15
 * characters) or `action` (flow). Returns the error message Meta would give, or what was sent
 * (the sandbox's stand-in and the tests' fake Graph API both check with it).
 */

/** A template send: its name, language, body parameters (in order) and other components. */
export interface ReceivedTemplate {
  name: string;
  languageCode: string;
  bodyParameters: string[];
  /** `parameter_name` to text, for a NAMED template's body. */
  namedParameters?: Record<string, string>;
  /** The header's parameter as sent. */
  header?: Record<string, unknown>;
  /** Button components as sent. */
  buttons?: Record<string, unknown>[];
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const PARAMETER_NAME = /^[a-z_][a-z0-9_]*$/;
const MEDIA_TYPES = ['image', 'video', 'document'];

/** Meta's rule for a text parameter (error 132018 in a status; 100 on the send). */
function textProblem(text: unknown, where: string, max: number): string | undefined {
  if (typeof text !== 'string' || text === '')
    return `(#100) The parameter ${where}["text"] is required.`;
  if (text.length > max)
    return `(#100) Param ${where}["text"] must be at most ${max} characters long.`;
  if (/[\n\t]/.test(text) || / {5,}/.test(text)) {
    return `(#100) Param ${where}["text"] cannot have new-line/tab characters or more than 4 consecutive spaces`;
  }
  return undefined;
}

function headerParameterProblem(parameter: unknown): string | undefined {
  if (!isRecord(parameter))
    return '(#100) Param template["components"][header]["parameters"] must be objects';
  const type = parameter.type;
  if (type === 'text') return textProblem(parameter.text, 'header parameter', 60);
  if (typeof type === 'string' && MEDIA_TYPES.includes(type)) {
    const media = parameter[type];
    if (!isRecord(media)) return `(#100) The parameter header parameter["${type}"] is required.`;
    const hasId = typeof media.id === 'string' && media.id !== '';
    const hasLink = typeof media.link === 'string' && /^https?:\/\//.test(media.link);
    if (hasId === hasLink) {
      return `(#100) Param header parameter["${type}"] must have exactly one of id or link`;
    }
    const allowed = type === 'document' ? ['id', 'link', 'filename'] : ['id', 'link'];
    const unknown = Object.keys(media).find((key) => !allowed.includes(key));
    if (unknown !== undefined)
      return `(#100) Param header parameter["${type}"]["${unknown}"] is not valid`;
    return undefined;
  }
  if (type === 'location') {
    const location = parameter.location;
    if (!isRecord(location))
      return '(#100) The parameter header parameter["location"] is required.';
    const { latitude, longitude, name, address } = location;
    if (typeof latitude !== 'number' || latitude < -90 || latitude > 90) {
      return '(#100) Param location["latitude"] must be a number between -90 and 90';
    }
    if (typeof longitude !== 'number' || longitude < -180 || longitude > 180) {
      return '(#100) Param location["longitude"] must be a number between -180 and 180';
    }
    if (
      (name !== undefined && typeof name !== 'string') ||
      (address !== undefined && typeof address !== 'string')
    ) {
      return '(#100) Param location["name"] and ["address"] must be strings';
    }
    return undefined;
  }
  return `(#100) Param header parameter["type"] must be one of {text, image, video, document, location}`;
}

function bodyParameterProblem(parameter: unknown): string | undefined {
  if (!isRecord(parameter))
    return '(#100) Param template["components"][body]["parameters"] must be objects';
  if (parameter.parameter_name !== undefined) {
    if (
      typeof parameter.parameter_name !== 'string' ||
      !PARAMETER_NAME.test(parameter.parameter_name)
    ) {
      return '(#100) Param parameter_name must be lowercase letters, digits and underscores';
    }
  }
  switch (parameter.type) {
    case 'text':
      return textProblem(parameter.text, 'body parameter', 1024);
    case 'currency': {
      const currency = parameter.currency;
      return isRecord(currency) &&
        typeof currency.fallback_value === 'string' &&
        typeof currency.code === 'string' &&
        Number.isInteger(currency.amount_1000)
        ? undefined
        : '(#100) Param currency must be {fallback_value, code, amount_1000}';
    }
    case 'date_time':
      return isRecord(parameter.date_time) && typeof parameter.date_time.fallback_value === 'string'
        ? undefined
        : '(#100) Param date_time must be {fallback_value}';
    default:
      return '(#100) Param body parameter["type"] must be one of {text, currency, date_time}';
  }
}

/** Each button sub_type's one parameter, as Meta documents it. */
const BUTTON_PARAMETERS: Record<string, (parameter: Json) => string | undefined> = {
  url: (parameter) =>
    parameter.type === 'text' && typeof parameter.text === 'string' && parameter.text !== ''
      ? parameter.text.length > 2000
        ? '(#100) Param button parameter["text"] must be at most 2000 characters long.'
        : undefined
      : '(#100) A url button takes one parameter {type: "text", text}',
  quick_reply: (parameter) =>
    parameter.type === 'payload' &&
    typeof parameter.payload === 'string' &&
    parameter.payload !== ''
      ? undefined
      : '(#100) A quick_reply button takes one parameter {type: "payload", payload}',
  copy_code: (parameter) =>
    parameter.type === 'coupon_code' &&
    typeof parameter.coupon_code === 'string' &&
    /^[A-Za-z0-9]{1,15}$/.test(parameter.coupon_code)
      ? undefined
      : '(#100) A copy_code button takes one parameter {type: "coupon_code", coupon_code} (alphanumeric, at most 15)',
  flow: (parameter) =>
    parameter.type === 'action' &&
    isRecord(parameter.action) &&
    (parameter.action.flow_token === undefined ||
      typeof parameter.action.flow_token === 'string') &&
    (parameter.action.flow_action_data === undefined || isRecord(parameter.action.flow_action_data))
      ? undefined
      : '(#100) A flow button takes one parameter {type: "action", action: {flow_token?, flow_action_data?}}',
};

function buttonProblem(component: Json): string | undefined {
  const subType = component.sub_type;
  const check = typeof subType === 'string' ? BUTTON_PARAMETERS[subType] : undefined;
  if (!check)
    return '(#100) Param button["sub_type"] must be one of {url, quick_reply, copy_code, flow}';
  const index = component.index;
  const validIndex =
    (typeof index === 'string' && /^\d$/.test(index)) ||
    (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index <= 9);
  if (!validIndex) return '(#100) Param button["index"] must be 0 to 9';
  const parameters = component.parameters;
  if (!Array.isArray(parameters) || parameters.length !== 1 || !isRecord(parameters[0])) {
    return '(#131008) Required parameter is missing: a button component takes exactly one parameter';
  }
  return check(parameters[0]);
}

/** `{name, language: {code}, components?: [header?, body?, button...]}` */
export function validateTemplate(value: unknown): string | ReceivedTemplate {
  if (!isRecord(value)) return '(#100) The parameter template is required.';
  const template = value;
  if (typeof template.name !== 'string' || template.name === '') {
    return '(#100) The parameter template["name"] is required.';
  }
  const language = template.language;
  if (!isRecord(language) || typeof language.code !== 'string' || language.code === '') {
    return '(#100) The parameter template["language"]["code"] is required.';
  }
  if (language.policy !== undefined && language.policy !== 'deterministic') {
    return '(#100) Param template["language"]["policy"] must be "deterministic"';
  }
  const components = template.components ?? [];
  if (!Array.isArray(components)) return '(#100) Param template["components"] must be an array.';
  const received: ReceivedTemplate = {
    name: template.name,
    languageCode: language.code,
    bodyParameters: [],
  };
  const seen = new Set<string>();
  for (const component of components) {
    if (!isRecord(component)) return '(#100) Param template["components"] must be objects';
    const type = component.type;
    if (type !== 'header' && type !== 'body' && type !== 'button') {
      return '(#100) Param component["type"] must be one of {header, body, button}';
    }
    const parameters = component.parameters;
    if (!Array.isArray(parameters) || parameters.length === 0) {
      return `(#131008) Required parameter is missing: a ${type} component needs parameters`;
    }
    if (type === 'button') {
      const problem = buttonProblem(component);
      if (problem) return problem;
      const key = `button:${String(component.index)}`;
      if (seen.has(key))
        return `(#100) Two button components with index ${String(component.index)}`;
      seen.add(key);
      (received.buttons ??= []).push(component);
      continue;
    }
    if (seen.has(type)) return `(#100) Only one ${type} component is allowed`;
    seen.add(type);
    if (type === 'header') {
      if (parameters.length !== 1) return '(#100) A header component takes exactly one parameter';
      const problem = headerParameterProblem(parameters[0]);
      if (problem) return problem;
      received.header = parameters[0] as Json;
      continue;
    }
    const named = parameters.filter(
      (parameter) => isRecord(parameter) && parameter.parameter_name !== undefined,
    );
    if (named.length > 0 && named.length !== parameters.length) {
      return '(#100) Body parameters must all have a parameter_name, or none';
    }
    for (const parameter of parameters) {
      const problem = bodyParameterProblem(parameter);
      if (problem) return problem;
      const { text, parameter_name: name } = parameter as Json;
      if (typeof text !== 'string') continue;
      if (typeof name === 'string') (received.namedParameters ??= {})[name] = text;
      else received.bodyParameters.push(text);
    }
  }
  return received;
}
