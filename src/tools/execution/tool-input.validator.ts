import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { JsonValue } from '../../common/json';
import { FieldError } from '../../common/http/problem';
import { toToolInputJsonSchema } from '../catalog/formatted-schema';
import { ParameterDefinition } from '../catalog/tool-specification.types';
import { ToolInput } from './tool-executor';

export interface ValidatedToolInput {
  /** The input with optional parameters given as `null` left out. */
  input: ToolInput;
  errors: FieldError[];
}

/** What a validator is compiled from: a tool specification, or anything with its parameters. */
export interface ToolParameters {
  readonly parameters: readonly ParameterDefinition[];
}

// Every error, so that a caller fixes all fields at once; `u` patterns as JSON Schema means them
// (and as the catalog checked them), code-point lengths; inherited properties (`toString`) are
// not parameters.
const ajv = new Ajv({ allErrors: true, strict: true, ownProperties: true });

/** One compiled validator per specification: specs are frozen and live as long as the catalog. */
const validators = new WeakMap<ToolParameters, ValidateFunction>();

/**
 * The validator of exactly the JSON Schema the catalog publishes for `spec` (every formatted
 * schema's input schema is `toToolInputJsonSchema(spec)`), compiled on first use.
 */
export function toolInputValidator(spec: ToolParameters): ValidateFunction {
  let validate = validators.get(spec);
  if (!validate) {
    const schema = toToolInputJsonSchema(spec);
    validate = ajv.compile(schema);
    // Ajv keeps every compiled schema in a cache of its own; the WeakMap is the only cache, so
    // that an MCP refresh's replaced specifications take their validators with them.
    ajv.removeSchema(schema);
    validators.set(spec, validate);
  }
  return validate;
}

/**
 * Checks a tool input against the published schema of its specification: required parameters
 * present, no unknown ones, each value of its type, enum and bounds. Every problem is reported,
 * named `input.<name>` (`input.<name>[<index>]` for an array element).
 * A parameter sent as `null` counts as absent: models often fill unused optional ones that way.
 */
export function validateToolInput(
  spec: ToolParameters,
  input: Readonly<Record<string, unknown>>,
): ValidatedToolInput {
  const declared = new Set(spec.parameters.map((parameter) => parameter.name));
  const present: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value !== null || !declared.has(name)) present[name] = value as JsonValue;
  }
  const validate = toolInputValidator(spec);
  if (validate(present)) return { input: present, errors: [] };
  return { input: present, errors: fieldErrors(spec, validate.errors ?? []) };
}

/** Arrays with more wrong elements than this report the first ones only. */
const MAX_ELEMENT_ERRORS = 20;

/** Which of several failed keywords on one value is reported, as a person would fix them. */
const KEYWORD_ORDER = ['type', 'maxItems', 'maxLength', 'enum', 'pattern', 'minimum', 'maximum'];

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  object: 'a JSON object',
  array: 'an array',
};

interface LocatedError extends FieldError {
  /** Unknown fields first (-1), then the spec's parameter order. */
  order: number;
  /** The top-level property the error is about. */
  name: string;
  keyword: string;
}

/** Ajv's errors as our field errors: one per value, in parameter order. */
function fieldErrors(spec: ToolParameters, errors: readonly ErrorObject[]): FieldError[] {
  const order = new Map(spec.parameters.map((parameter, index) => [parameter.name, index]));
  const located = errors.map((error) => locate(error, order));
  // An array over maxItems is refused as a whole: its elements are not reported.
  const oversized = new Set(located.filter((e) => e.keyword === 'maxItems').map((e) => e.name));
  const byField = new Map<string, LocatedError>();
  const elements = new Map<string, number>();
  for (const error of located) {
    if (oversized.has(error.name) && error.keyword !== 'maxItems') continue;
    const kept = byField.get(error.field);
    if (kept) {
      if (KEYWORD_ORDER.indexOf(error.keyword) < KEYWORD_ORDER.indexOf(kept.keyword)) {
        byField.set(error.field, error);
      }
      continue;
    }
    if (error.field !== `input.${error.name}`) {
      const count = elements.get(error.name) ?? 0;
      if (count >= MAX_ELEMENT_ERRORS) continue;
      elements.set(error.name, count + 1);
    }
    byField.set(error.field, error);
  }
  return [...byField.values()]
    .sort((a, b) => a.order - b.order)
    .map(({ field, message }) => ({ field, message }));
}

function locate(error: ErrorObject, order: ReadonlyMap<string, number>): LocatedError {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const name = String(params.additionalProperty);
    return {
      field: `input.${name}`,
      message: `unknown field ${name}`,
      order: -1,
      name,
      keyword: error.keyword,
    };
  }
  if (error.keyword === 'required') {
    const name = String(params.missingProperty);
    return {
      field: `input.${name}`,
      message: `${name} is required`,
      order: order.get(name) ?? -1,
      name,
      keyword: error.keyword,
    };
  }
  // `/values/1` → `input.values[1]`: parameter names match NAME_PATTERN, so no escapes.
  const [name, ...rest] = error.instancePath.split('/').slice(1);
  const field = `input.${name}${rest.map((index) => `[${index}]`).join('')}`;
  return {
    field,
    message: messageOf(error),
    order: order.get(name) ?? -1,
    name,
    keyword: error.keyword,
  };
}

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `must be ${TYPE_NAMES[String(params.type)] ?? String(params.type)}`;
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters long`;
    case 'pattern':
      return `must match the pattern ${String(params.pattern)}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    default:
      return error.message ?? 'is not valid';
  }
}
