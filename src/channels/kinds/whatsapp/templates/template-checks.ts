import type { FieldError } from '../../../../common/http/problem';
import type { TemplateButtonSubType, MessageTemplate } from './template-message.dto';
import type { CatalogTemplate, TemplateLookup } from './whatsapp-template-catalog';

/** A header format whose send carries a parameter, and the header type that gives it. */
const HEADER_FORMATS: Record<string, string> = {
  TEXT: 'text',
  IMAGE: 'image',
  VIDEO: 'video',
  DOCUMENT: 'document',
  LOCATION: 'location',
};

/**
 * The catalog's button types whose send may carry a parameter, as the send's sub_type. An
 * authentication template's one-time password button (`OTP`, any otp_type: COPY_CODE, ONE_TAP,
 * ZERO_TAP) is sent as a `url` button whose parameter is the code; Meta lists it as `OTP` or, once
 * created, as a `URL` with `otp{{1}}` in its url ("Authentication templates", "Copy code
 * authentication templates": developers.facebook.com/docs/whatsapp/business-management-api/authentication-templates).
 */
const BUTTON_SUB_TYPES: Record<string, TemplateButtonSubType> = {
  URL: 'url',
  QUICK_REPLY: 'quick_reply',
  COPY_CODE: 'copy_code',
  FLOW: 'flow',
  OTP: 'url',
};

/** Buttons whose send carries no parameter: agentline knows them and sends them as they are. */
const STATIC_BUTTONS = new Set(['PHONE_NUMBER']);

/** The components agentline fills (or sends as they are); any other one it cannot send yet. */
const KNOWN_COMPONENTS = new Set(['HEADER', 'BODY', 'FOOTER', 'BUTTONS', 'LIMITED_TIME_OFFER']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A component's or a button's type, upper case as Meta lists it. */
const typeOf = (entry: Record<string, unknown>): string => String(entry.type).toUpperCase();

/** A component of Meta's template (`HEADER`, `BODY`, `FOOTER`, `BUTTONS`), or undefined. */
function component(template: CatalogTemplate, type: string): Record<string, unknown> | undefined {
  return template.components.find(
    (entry): entry is Record<string, unknown> => isRecord(entry) && typeOf(entry) === type,
  );
}

/** The distinct variables of a component's text (`{{1}}`, `{{first_name}}`), in order. */
export function templateVariables(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  const names = [...text.matchAll(/\{\{\s*([^{}\s]+)\s*\}\}/g)].map((match) => match[1]);
  return [...new Set(names)];
}

const braces = (names: readonly string[]) => names.map((name) => `{{${name}}}`).join(', ');
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * What is wrong with sending `template` given what the channel's catalog says of it: nothing
 * when the channel has no catalog (the template goes as given). Else it must exist in its
 * language, be APPROVED, and get exactly what its components need: the body's variables
 * (positional count, or names for NAMED), a header parameter of the header's format when the
 * header has one, and parameters for dynamic URL and copy-code buttons; nothing extra.
 */
export function templateProblems(lookup: TemplateLookup, template: MessageTemplate): FieldError[] {
  if (!lookup.catalog) return [];
  const found = lookup.template;
  if (!found) {
    const others = lookup.languages.filter((language) => language !== template.language);
    return [
      others.length > 0
        ? {
            field: 'template.language',
            message: `template "${template.name}" does not exist in ${template.language}; the account has it in ${others.join(', ')}`,
          }
        : {
            field: 'template.name',
            message: `template "${template.name}" does not exist in the channel's WhatsApp Business Account`,
          },
    ];
  }
  if (found.status !== 'APPROVED') {
    return [
      {
        field: 'template.name',
        message: `template "${template.name}" (${template.language}) is ${found.status}; only APPROVED templates can be sent`,
      },
    ];
  }
  return [
    ...unsupportedProblems(found),
    ...bodyProblems(found, template),
    ...headerProblems(found, template),
    ...buttonProblems(found, template),
  ];
}

const notSupported = (what: string): FieldError => ({
  field: 'template.name',
  message: `${what} not supported by agentline yet`,
});

/**
 * What the template has that a send must fill and agentline cannot: a carousel's cards, a
 * limited-time offer's expiration (expiration_time_ms), catalog and multi-product buttons (an
 * action), a header format or a component or button type it does not know. Meta would refuse the
 * send, so it is refused first, naming it.
 */
function unsupportedProblems(found: CatalogTemplate): FieldError[] {
  const problems: FieldError[] = [];
  for (const entry of found.components) {
    if (!isRecord(entry)) continue;
    const type = typeOf(entry);
    if (!KNOWN_COMPONENTS.has(type)) {
      problems.push(notSupported(`${type} components are`));
    } else if (
      type === 'LIMITED_TIME_OFFER' &&
      isRecord(entry.limited_time_offer) &&
      entry.limited_time_offer.has_expiration === true
    ) {
      problems.push(
        notSupported('LIMITED_TIME_OFFER components with an expiration (expiration_time_ms) are'),
      );
    } else if (
      type === 'HEADER' &&
      typeof entry.format === 'string' &&
      !(entry.format.toUpperCase() in HEADER_FORMATS)
    ) {
      problems.push(notSupported(`${entry.format.toUpperCase()} headers are`));
    }
  }
  catalogButtons(found).forEach((button, index) => {
    const type = typeOf(button);
    if (!(type in BUTTON_SUB_TYPES) && !STATIC_BUTTONS.has(type)) {
      problems.push(notSupported(`${type} buttons (button ${index}) are`));
    }
  });
  return problems;
}

function bodyProblems(found: CatalogTemplate, template: MessageTemplate): FieldError[] {
  const variables = templateVariables(component(found, 'BODY')?.text);
  const named = Object.keys(template.named_parameters ?? {});
  const positional = template.parameters;
  if (found.parameterFormat === 'NAMED') {
    const problems: FieldError[] = [];
    if (positional.length > 0) {
      problems.push({
        field: 'template.parameters',
        message: `the template's variables are named (${braces(variables) || 'none'}): give them in named_parameters, not parameters`,
      });
    }
    const missing = variables.filter((name) => !named.includes(name));
    const extra = named.filter((name) => !variables.includes(name));
    if (missing.length > 0 || extra.length > 0) {
      problems.push({
        field: 'template.named_parameters',
        message: [
          missing.length > 0 && `missing ${missing.join(', ')}`,
          extra.length > 0 && `not in the template's body: ${extra.join(', ')}`,
        ]
          .filter(Boolean)
          .join('; '),
      });
    }
    return problems;
  }
  const problems: FieldError[] = [];
  if (named.length > 0) {
    problems.push({
      field: 'template.named_parameters',
      message: `the template's variables are positional: give them in parameters, not named_parameters`,
    });
  }
  if (positional.length !== variables.length) {
    problems.push({
      field: 'template.parameters',
      message: `the template's body has ${plural(variables.length, 'variable')}${variables.length > 0 ? ` (${braces(variables)})` : ''}; ${plural(positional.length, 'parameter')} given`,
    });
  }
  return problems;
}

function headerProblems(found: CatalogTemplate, template: MessageTemplate): FieldError[] {
  const header = component(found, 'HEADER');
  const format = typeof header?.format === 'string' ? header.format.toUpperCase() : undefined;
  const given = template.header;
  if (format !== undefined && !(format in HEADER_FORMATS)) return []; // refused as unsupported
  const variables = format === 'TEXT' ? templateVariables(header?.text) : [];
  const needed = format !== undefined && (format !== 'TEXT' || variables.length > 0);
  if (!needed) {
    return given
      ? [
          {
            field: 'template.header',
            message:
              format === undefined
                ? 'the template has no header: leave header out'
                : "the template's text header has no variable: leave header out",
          },
        ]
      : [];
  }
  const type = HEADER_FORMATS[format];
  if (!given) {
    return [
      {
        field: 'template.header',
        message: `the template's header is ${format}${format === 'TEXT' ? ` (${braces(variables)})` : ''}: give header { type: "${type}" } with its ${describeHeaderValue(type)}`,
      },
    ];
  }
  if (given.type !== type) {
    return [
      {
        field: 'template.header.type',
        message: `the template's header is ${format}, not ${given.type}`,
      },
    ];
  }
  if (type !== 'text') return [];
  if (found.parameterFormat === 'NAMED' && given.parameter_name !== variables[0]) {
    return [
      {
        field: 'template.header.parameter_name',
        message: `the template's header variable is {{${variables[0]}}}: parameter_name must be "${variables[0]}"`,
      },
    ];
  }
  if (found.parameterFormat !== 'NAMED' && given.parameter_name !== undefined) {
    return [
      {
        field: 'template.header.parameter_name',
        message: "the template's variables are positional: leave parameter_name out",
      },
    ];
  }
  return [];
}

function describeHeaderValue(type: string): string {
  if (type === 'text') return 'text';
  if (type === 'location') return 'location';
  return 'media_id or link';
}

/** The catalog's buttons, in order (their index is their position). */
function catalogButtons(found: CatalogTemplate): Record<string, unknown>[] {
  const buttons = component(found, 'BUTTONS')?.buttons;
  return Array.isArray(buttons) ? buttons.map((button) => (isRecord(button) ? button : {})) : [];
}

/** Whether a catalog button's send must carry a parameter: a dynamic URL, a copy code, an OTP. */
function needsParameter(button: Record<string, unknown>): boolean {
  const type = typeOf(button);
  if (type === 'COPY_CODE' || type === 'OTP') return true;
  return type === 'URL' && templateVariables(button.url).length > 0;
}

/** A catalog button as a problem names it: `URL`, `COPY_CODE`, `OTP COPY_CODE`. */
function buttonLabel(button: Record<string, unknown>): string {
  const type = typeOf(button);
  return type === 'OTP' && typeof button.otp_type === 'string'
    ? `OTP ${button.otp_type.toUpperCase()}`
    : type;
}

/** The sub_type a catalog button's parameter takes, or undefined when it takes none. */
function acceptedSubType(button: Record<string, unknown>): TemplateButtonSubType | undefined {
  const type = typeOf(button);
  if (type === 'URL') return needsParameter(button) ? 'url' : undefined;
  return BUTTON_SUB_TYPES[type];
}

function buttonProblems(found: CatalogTemplate, template: MessageTemplate): FieldError[] {
  const buttons = catalogButtons(found);
  const given = template.buttons ?? [];
  const problems: FieldError[] = [];
  given.forEach((button, at) => {
    const field = `template.buttons.${at}`;
    const own = buttons[button.index] as Record<string, unknown> | undefined;
    if (!own) {
      problems.push({
        field,
        message: `the template has no button at index ${button.index} (it has ${plural(buttons.length, 'button')})`,
      });
      return;
    }
    const type = buttonLabel(own);
    const accepted = acceptedSubType(own);
    if (accepted === undefined) {
      problems.push({
        field,
        message: `button ${button.index} (${type === 'URL' ? 'a URL without a variable' : type}) takes no parameter`,
      });
    } else if (accepted !== button.sub_type) {
      problems.push({
        field: `${field}.sub_type`,
        message: `button ${button.index} is ${type}: its sub_type is ${accepted}, not ${button.sub_type}`,
      });
    }
  });
  buttons.forEach((button, index) => {
    if (!needsParameter(button) || given.some((entry) => entry.index === index)) return;
    problems.push({
      field: 'template.buttons',
      message: `button ${index} (${buttonLabel(button)}) needs a parameter: { index: ${index}, sub_type: "${acceptedSubType(button)}", parameter }${typeOf(button) === 'OTP' ? ' (the code)' : ''}`,
    });
  });
  return problems;
}

/** One sentence of every problem, for a problem's detail or a delivery's error message. */
export function describeTemplateProblems(problems: readonly FieldError[]): string {
  return `The template cannot be sent as given: ${problems.map((problem) => problem.message).join('; ')}.`;
}
