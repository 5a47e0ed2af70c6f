import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';
import type { FieldError } from '../../../../common/http/problem';
import { IsOptionalNotNull } from '../../../../common/http/validation.decorators';

/**
 * Meta's limits on what a template send carries ("Send message templates" and the Cloud API's
 * parameter object, developers.facebook.com/docs/whatsapp/cloud-api/reference/messages):
 * a body parameter up to 1,024 characters, a header text parameter up to 60, at most 10 buttons
 * (indexes 0 to 9), a coupon code up to 15 characters, a URL (prefix and suffix) up to 2,000.
 */
export const MAX_TEMPLATE_PARAMETERS = 20;
export const TEMPLATE_PARAMETER_MAX_LENGTH = 1024;
export const TEMPLATE_HEADER_TEXT_MAX_LENGTH = 60;
export const MAX_TEMPLATE_BUTTONS = 10;
export const COUPON_CODE_MAX_LENGTH = 15;
export const URL_BUTTON_PARAMETER_MAX_LENGTH = 2000;
/** A header's media link, and a location header's name and address. */
export const TEMPLATE_HEADER_LINK_MAX_LENGTH = 2000;
export const TEMPLATE_LOCATION_TEXT_MAX_LENGTH = 1000;
/** A named variable, as Meta allows them: lowercase letters, digits and `_`, not a digit first. */
export const TEMPLATE_PARAMETER_NAME = /^[a-z_][a-z0-9_]*$/;
export const TEMPLATE_PARAMETER_NAME_MAX_LENGTH = 100;

export const TEMPLATE_HEADER_TYPES = ['text', 'image', 'video', 'document', 'location'] as const;
export type TemplateHeaderType = (typeof TEMPLATE_HEADER_TYPES)[number];
export const TEMPLATE_BUTTON_SUB_TYPES = ['url', 'quick_reply', 'copy_code', 'flow'] as const;
export type TemplateButtonSubType = (typeof TEMPLATE_BUTTON_SUB_TYPES)[number];

const MEDIA_HEADERS: readonly TemplateHeaderType[] = ['image', 'video', 'document'];

/** A header field's rule: which header types take it, and how many of a set must be given. */
const HEADER_FIELDS = {
  text: ['text'],
  parameter_name: ['text'],
  media_id: MEDIA_HEADERS,
  link: MEDIA_HEADERS,
  location: ['location'],
} as const satisfies Record<string, readonly TemplateHeaderType[]>;

/** A header field given only with the header types that take it. */
function HeaderField(field: keyof typeof HEADER_FIELDS): PropertyDecorator {
  const problem = (header: TemplateHeaderDto): string | undefined =>
    (TEMPLATE_HEADER_TYPES as readonly string[]).includes(header.type) &&
    !(HEADER_FIELDS[field] as readonly string[]).includes(header.type)
      ? `${field} is only for ${HEADER_FIELDS[field].join(', ')} headers, not ${header.type}`
      : undefined;
  return (target, propertyName) =>
    registerDecorator({
      name: 'templateHeaderField',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          problem(args.object as TemplateHeaderDto) === undefined,
        defaultMessage: (args: ValidationArguments) =>
          problem(args.object as TemplateHeaderDto) ?? `${field} is not valid`,
      },
    });
}

/**
 * What the header's type needs (on `type`, which is always there): `text` for a text header,
 * `location` for a location one, `media_id` or `link` for media.
 */
function HeaderComplete(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'templateHeaderComplete',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          missingHeaderField(args.object as TemplateHeaderDto) === undefined,
        defaultMessage: (args: ValidationArguments) =>
          missingHeaderField(args.object as TemplateHeaderDto) ?? 'header is not complete',
      },
    });
}

function missingHeaderField(header: TemplateHeaderDto): string | undefined {
  const { type } = header;
  if (type === 'text' && header.text === undefined) return 'text is required for a text header';
  if (type === 'location' && header.location === undefined) {
    return 'location is required for a location header';
  }
  if (MEDIA_HEADERS.includes(type) && header.media_id === undefined && header.link === undefined) {
    return `media_id or link is required for a ${type} header`;
  }
  return undefined;
}

/** `media_id` and `link` together: one of them. */
function OneMediaSource(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'templateHeaderOneMediaSource',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          (args.object as TemplateHeaderDto).media_id === undefined ||
          (args.object as TemplateHeaderDto).link === undefined,
        defaultMessage: () => 'give media_id or link, not both',
      },
    });
}

/** `{ name: value }`: names as Meta allows them, values as body parameters. */
function NamedParameters(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'templateNamedParameters',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => namedParametersProblem(value) === undefined,
        defaultMessage: (args: ValidationArguments) =>
          namedParametersProblem(args.value) ?? 'named_parameters is not valid',
      },
    });
}

function namedParametersProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'named_parameters must be an object of { name: value }';
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_TEMPLATE_PARAMETERS) {
    return `named_parameters must have at most ${MAX_TEMPLATE_PARAMETERS} names`;
  }
  for (const [name, text] of entries) {
    if (name.length > TEMPLATE_PARAMETER_NAME_MAX_LENGTH || !TEMPLATE_PARAMETER_NAME.test(name)) {
      return `named_parameters name "${name.slice(0, TEMPLATE_PARAMETER_NAME_MAX_LENGTH)}" must be lowercase letters, digits and _, not starting with a digit`;
    }
    if (typeof text !== 'string' || text.length === 0) {
      return `named_parameters.${name} must be a non-empty string`;
    }
    if (text.length > TEMPLATE_PARAMETER_MAX_LENGTH) {
      return `named_parameters.${name} must be at most ${TEMPLATE_PARAMETER_MAX_LENGTH} characters`;
    }
  }
  return undefined;
}

/** A button's parameter, within what Meta takes for its sub_type. */
function ButtonParameter(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'templateButtonParameter',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          buttonParameterProblem(value, args.object as TemplateButtonDto) === undefined,
        defaultMessage: (args: ValidationArguments) =>
          buttonParameterProblem(args.value, args.object as TemplateButtonDto) ??
          'parameter is not valid',
      },
    });
}

const BUTTON_PARAMETER_MAX_LENGTH: Record<TemplateButtonSubType, number> = {
  url: URL_BUTTON_PARAMETER_MAX_LENGTH,
  quick_reply: TEMPLATE_PARAMETER_MAX_LENGTH,
  copy_code: COUPON_CODE_MAX_LENGTH,
  flow: TEMPLATE_PARAMETER_MAX_LENGTH,
};

function buttonParameterProblem(value: unknown, button: TemplateButtonDto): string | undefined {
  if (typeof value !== 'string' || value.length === 0) {
    return 'parameter must be a non-empty string';
  }
  const max = BUTTON_PARAMETER_MAX_LENGTH[button.sub_type] as number | undefined;
  if (max !== undefined && value.length > max) {
    return `parameter must be at most ${max} characters for a ${button.sub_type} button`;
  }
  return undefined;
}

/** A location header's place. */
export class TemplateLocationDto {
  @ApiProperty({ minimum: -90, maximum: 90, example: 40.4168 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-90)
  @Max(90)
  latitude!: number;

  @ApiProperty({ minimum: -180, maximum: 180, example: -3.7038 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-180)
  @Max(180)
  longitude!: number;

  @ApiPropertyOptional({ maxLength: 1000, example: 'Madrid store' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(TEMPLATE_LOCATION_TEXT_MAX_LENGTH)
  name?: string;

  @ApiPropertyOptional({ maxLength: 1000, example: 'Puerta del Sol 1, Madrid' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(TEMPLATE_LOCATION_TEXT_MAX_LENGTH)
  address?: string;
}

/**
 * The header's parameter, of the header's format: `text` (a TEXT header with a variable),
 * `image`, `video` or `document` by `media_id` (an uploaded media's id) or `link` (an HTTPS URL),
 * or `location`.
 */
export class TemplateHeaderDto {
  @ApiProperty({ enum: TEMPLATE_HEADER_TYPES, example: 'image' })
  @IsIn(TEMPLATE_HEADER_TYPES)
  @HeaderComplete()
  type!: TemplateHeaderType;

  @ApiPropertyOptional({
    maxLength: TEMPLATE_HEADER_TEXT_MAX_LENGTH,
    description: "A text header's variable, filled like the prompt for a follow-up.",
  })
  @HeaderField('text')
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(TEMPLATE_HEADER_TEXT_MAX_LENGTH)
  text?: string;

  @ApiPropertyOptional({
    pattern: TEMPLATE_PARAMETER_NAME.source,
    description:
      "A NAMED template's text header: the variable's name (as in `{{order_id}}`); Meta wants it named.",
  })
  @HeaderField('parameter_name')
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(TEMPLATE_PARAMETER_NAME_MAX_LENGTH)
  @Matches(TEMPLATE_PARAMETER_NAME, {
    message: '$property must be lowercase letters, digits and _, not starting with a digit',
  })
  parameter_name?: string;

  @ApiPropertyOptional({
    maxLength: 128,
    example: '1013859600285441',
    description: 'An uploaded media id.',
  })
  @HeaderField('media_id')
  @OneMediaSource()
  @IsOptionalNotNull()
  @IsString()
  @Matches(/^\d{1,128}$/, { message: '$property must be a media id (digits)' })
  media_id?: string;

  @ApiPropertyOptional({
    maxLength: 2000,
    example: 'https://example.com/spring-sale.jpg',
    description: 'An HTTPS URL Meta downloads the media from.',
  })
  @HeaderField('link')
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(TEMPLATE_HEADER_LINK_MAX_LENGTH)
  @Matches(/^https?:\/\/\S+$/, { message: '$property must be an http(s) URL' })
  link?: string;

  @ApiPropertyOptional({ type: TemplateLocationDto })
  @HeaderField('location')
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => TemplateLocationDto)
  location?: TemplateLocationDto;
}

/**
 * A button's parameter: a dynamic URL button's suffix (`url`), a quick reply's payload, a
 * copy-code button's coupon code, a flow button's flow_token.
 */
export class TemplateButtonDto {
  @ApiProperty({ minimum: 0, maximum: MAX_TEMPLATE_BUTTONS - 1, example: 0 })
  @IsInt()
  @Min(0)
  @Max(MAX_TEMPLATE_BUTTONS - 1)
  index!: number;

  @ApiProperty({ enum: TEMPLATE_BUTTON_SUB_TYPES, example: 'url' })
  @IsIn(TEMPLATE_BUTTON_SUB_TYPES)
  sub_type!: TemplateButtonSubType;

  @ApiProperty({
    example: 'orders/{{phone}}',
    maxLength: URL_BUTTON_PARAMETER_MAX_LENGTH,
    description: `The URL's suffix (url), the payload (quick_reply, at most ${TEMPLATE_PARAMETER_MAX_LENGTH} characters), the coupon code (copy_code, at most ${COUPON_CODE_MAX_LENGTH}) or the flow_token (flow).`,
  })
  @ButtonParameter()
  parameter!: string;
}

/**
 * A pre-approved WhatsApp template, sent instead of text to a number outside the 24-hour window.
 * Meta's rules: lowercase letters, digits and `_`; a language code such as `en` or `en_US`.
 * Sending now and follow-ups take the same one; it keeps the follow-ups' name, which OpenAPI
 * publishes as its schema's.
 */
export class FollowUpTemplateDto {
  @ApiProperty({ example: 'weekly_check_in', maxLength: 512, pattern: '^[a-z0-9_]+$' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  @Matches(/^[a-z0-9_]+$/, { message: '$property must be lowercase letters, digits and _ only' })
  name!: string;

  @ApiProperty({ example: 'en_US', pattern: '^[a-z]{2,3}(_[A-Z]{2})?$' })
  @IsString()
  @Matches(/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/, {
    message: '$property must be a language code such as en or en_US',
  })
  language!: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['{{title}}', '{{message}}'],
    default: [],
    description: `A POSITIONAL template's body parameters in order ({{1}}, {{2}}...; at most ${MAX_TEMPLATE_PARAMETERS}), filled like the prompt: {{title}}, {{description}}, {{phone}} and {{message}} (the composed text).`,
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_TEMPLATE_PARAMETERS)
  @IsString({ each: true })
  // Meta refuses an empty parameter (131008).
  @IsNotEmpty({ each: true })
  @MaxLength(TEMPLATE_PARAMETER_MAX_LENGTH, { each: true })
  parameters?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: TEMPLATE_PARAMETER_MAX_LENGTH },
    example: { first_name: '{{title}}' },
    description: `A NAMED template's body variables, { name: value } (as in {{first_name}}; at most ${MAX_TEMPLATE_PARAMETERS}), filled like the prompt.`,
  })
  @IsOptionalNotNull()
  @NamedParameters()
  named_parameters?: Record<string, string>;

  @ApiPropertyOptional({
    type: TemplateHeaderDto,
    description: "The header's parameter, when the template's header has one.",
  })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => TemplateHeaderDto)
  header?: TemplateHeaderDto;

  @ApiPropertyOptional({
    type: [TemplateButtonDto],
    description:
      'Button parameters by index: required for dynamic URL and copy-code buttons, optional for quick replies (payload) and flows (flow_token).',
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_TEMPLATE_BUTTONS)
  @ArrayUnique((button: TemplateButtonDto | undefined) => button?.index, {
    message: 'buttons must have one entry per index',
  })
  @ValidateNested({ each: true })
  @Type(() => TemplateButtonDto)
  buttons?: TemplateButtonDto[];
}

export interface TemplateLocation {
  latitude: number;
  longitude: number;
  name?: string;
  address?: string;
}

export interface TemplateHeader {
  type: TemplateHeaderType;
  text?: string;
  parameter_name?: string;
  media_id?: string;
  link?: string;
  location?: TemplateLocation;
}

export interface TemplateButton {
  index: number;
  sub_type: TemplateButtonSubType;
  parameter: string;
}

/**
 * A WhatsApp template as a message or a follow-up stores it (jsonb, in the request's own names):
 * its name, language, body parameters (positional, or named), header and button parameters.
 */
export interface MessageTemplate {
  name: string;
  language: string;
  parameters: string[];
  named_parameters?: Record<string, string>;
  header?: TemplateHeader;
  buttons?: TemplateButton[];
}

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/** Only the template's own fields (never what else the validated object may carry). */
export const toMessageTemplate = (template: FollowUpTemplateDto): MessageTemplate =>
  defined({
    name: template.name,
    language: template.language,
    parameters: template.parameters ?? [],
    named_parameters: template.named_parameters && { ...template.named_parameters },
    header:
      template.header &&
      defined({
        type: template.header.type,
        text: template.header.text,
        parameter_name: template.header.parameter_name,
        media_id: template.header.media_id,
        link: template.header.link,
        location:
          template.header.location &&
          defined({
            latitude: template.header.location.latitude,
            longitude: template.header.location.longitude,
            name: template.header.location.name,
            address: template.header.location.address,
          }),
      }),
    buttons: template.buttons?.map((button) => ({
      index: button.index,
      sub_type: button.sub_type,
      parameter: button.parameter,
    })),
  });

/**
 * The template with every string it sends passed through `fill` (a follow-up's placeholders):
 * body parameters, named values, the header's text, link and place, button parameters. Ids and
 * names (media ids, variable names) are not text and stay as they are.
 */
export function fillTemplateStrings(
  template: MessageTemplate,
  fill: (text: string) => string,
): MessageTemplate {
  const { header, named_parameters: named, buttons } = template;
  const fillOptional = (text: string | undefined) => (text === undefined ? undefined : fill(text));
  return defined({
    name: template.name,
    language: template.language,
    parameters: (template.parameters ?? []).map(fill),
    named_parameters:
      named && Object.fromEntries(Object.entries(named).map(([name, text]) => [name, fill(text)])),
    header:
      header &&
      defined({
        ...header,
        text: fillOptional(header.text),
        link: fillOptional(header.link),
        location:
          header.location &&
          defined({
            ...header.location,
            name: fillOptional(header.location.name),
            address: fillOptional(header.location.address),
          }),
      }),
    buttons: buttons?.map((button) => ({ ...button, parameter: fill(button.parameter) })),
  });
}

/** A string a template send carries: the request's field it comes from, and Meta's limit there. */
export interface TemplateValue {
  field: string;
  text: string;
  max: number;
}

/**
 * Every string the template sends, with its field and Meta's limit for its place: body parameters
 * (1,024), a header text (60), a header link, a location's name and address, and each button's
 * parameter (a URL suffix 2,000, a coupon code 15...).
 */
export function templateValues(
  template: Pick<MessageTemplate, 'parameters' | 'named_parameters' | 'header' | 'buttons'>,
): TemplateValue[] {
  const { header } = template;
  const optional = (field: string, text: string | undefined, max: number): TemplateValue[] =>
    text === undefined ? [] : [{ field, text, max }];
  return [
    ...template.parameters.map((text, at) => ({
      field: `template.parameters.${at}`,
      text,
      max: TEMPLATE_PARAMETER_MAX_LENGTH,
    })),
    ...Object.entries(template.named_parameters ?? {}).map(([name, text]) => ({
      field: `template.named_parameters.${name}`,
      text,
      max: TEMPLATE_PARAMETER_MAX_LENGTH,
    })),
    ...optional('template.header.text', header?.text, TEMPLATE_HEADER_TEXT_MAX_LENGTH),
    ...optional('template.header.link', header?.link, TEMPLATE_HEADER_LINK_MAX_LENGTH),
    ...optional(
      'template.header.location.name',
      header?.location?.name,
      TEMPLATE_LOCATION_TEXT_MAX_LENGTH,
    ),
    ...optional(
      'template.header.location.address',
      header?.location?.address,
      TEMPLATE_LOCATION_TEXT_MAX_LENGTH,
    ),
    ...(template.buttons ?? []).map((button, at) => ({
      field: `template.buttons.${at}.parameter`,
      text: button.parameter,
      max: BUTTON_PARAMETER_MAX_LENGTH[button.sub_type],
    })),
  ];
}

/**
 * A filled template's values Meta would refuse: an empty one (131008, a required parameter
 * missing) or one over its place's limit, each naming its field and the limit.
 */
export function templateValueProblems(
  template: Pick<MessageTemplate, 'parameters' | 'named_parameters' | 'header' | 'buttons'>,
): FieldError[] {
  return templateValues(template).flatMap(({ field, text, max }) => {
    if (text.length === 0) {
      return [{ field, message: `${field} is empty once filled; Meta refuses an empty value` }];
    }
    if (text.length > max) {
      return [
        {
          field,
          message: `${field} is ${text.length} characters once filled; Meta's limit there is ${max}`,
        },
      ];
    }
    return [];
  });
}
