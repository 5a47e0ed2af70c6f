import { JsonValue } from '../../common/json';
import { FieldError } from '../../common/http/problem';
import {
  InnerValType,
  ParameterDefinition,
  ValueSchemaDefinition,
} from '../catalog/tool-specification.types';
import { ToolInput } from './tool-executor';

export interface ValidatedToolInput {
  /** The input with optional parameters given as `null` left out. */
  input: ToolInput;
  errors: FieldError[];
}

/**
 * Checks a tool input against its specification's parameters: required ones present, no unknown
 * ones, each value of its val_type, enum and bounds (max_length, pattern, minimum, maximum,
 * max_items). Every problem is reported, named `input.<name>`.
 * An optional parameter sent as `null` counts as absent: models often fill unused ones that way.
 */
export function validateToolInput(
  parameters: readonly ParameterDefinition[],
  input: Readonly<Record<string, unknown>>,
): ValidatedToolInput {
  const errors: FieldError[] = [];
  const accepted: Record<string, JsonValue> = {};
  const byName = new Map(parameters.map((parameter) => [parameter.name, parameter]));
  for (const name of Object.keys(input)) {
    if (!byName.has(name))
      errors.push({ field: `input.${name}`, message: `unknown field ${name}` });
  }
  for (const parameter of parameters) {
    const field = `input.${parameter.name}`;
    const value = Object.prototype.hasOwnProperty.call(input, parameter.name)
      ? input[parameter.name]
      : undefined;
    if (value === undefined || value === null) {
      if (parameter.required) errors.push({ field, message: `${parameter.name} is required` });
      continue;
    }
    const problems = checkValue(parameter.value_schema, value, field);
    if (problems.length > 0) errors.push(...problems);
    else accepted[parameter.name] = value as JsonValue;
  }
  return { input: accepted, errors };
}

/** Arrays with more wrong elements than this report the first ones only. */
const MAX_ELEMENT_ERRORS = 20;

function checkValue(schema: ValueSchemaDefinition, value: unknown, field: string): FieldError[] {
  if (schema.val_type !== 'array') {
    const message = checkScalar(schema.val_type, schema, value);
    return message ? [{ field, message }] : [];
  }
  if (!Array.isArray(value)) return [{ field, message: 'must be an array' }];
  // Checked before the elements: an oversized array is refused without walking it.
  if (schema.max_items !== undefined && value.length > schema.max_items) {
    return [{ field, message: `must have at most ${schema.max_items} items` }];
  }
  const inner = schema.inner_val_type as InnerValType;
  const errors: FieldError[] = [];
  for (let index = 0; index < value.length && errors.length < MAX_ELEMENT_ERRORS; index++) {
    const item: unknown = value[index];
    const message =
      item === null ? `must be ${describeType(inner)}` : checkScalar(inner, schema, item);
    if (message) errors.push({ field: `${field}[${index}]`, message });
  }
  return errors;
}

function checkScalar(
  type: InnerValType,
  schema: ValueSchemaDefinition,
  value: unknown,
): string | undefined {
  if (!hasType(type, value)) return `must be ${describeType(type)}`;
  if (typeof value === 'string') return checkString(schema, value);
  if (typeof value === 'number') return checkNumber(schema, value);
  return undefined;
}

function checkString(schema: ValueSchemaDefinition, value: string): string | undefined {
  const { enum: allowed, max_length: maxLength, pattern } = schema;
  // Length first: nothing else (enum, pattern) looks at an oversized string.
  if (maxLength !== undefined && value.length > maxLength && codePoints(value) > maxLength) {
    return `must be at most ${maxLength} characters long`;
  }
  if (allowed && !allowed.includes(value)) return `must be one of: ${allowed.join(', ')}`;
  if (pattern !== undefined && !compiledPattern(pattern).test(value)) {
    return `must match the pattern ${pattern}`;
  }
  return undefined;
}

function checkNumber(schema: ValueSchemaDefinition, value: number): string | undefined {
  if (schema.minimum !== undefined && value < schema.minimum) {
    return `must be at least ${schema.minimum}`;
  }
  if (schema.maximum !== undefined && value > schema.maximum) {
    return `must be at most ${schema.maximum}`;
  }
  return undefined;
}

/** Characters as JSON Schema counts them: a surrogate pair (an emoji) is one. */
function codePoints(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xdc00 && unit <= 0xdfff && index > 0) {
      const previous = value.charCodeAt(index - 1);
      if (previous >= 0xd800 && previous <= 0xdbff) continue;
    }
    count++;
  }
  return count;
}

/** Patterns come from the catalog (trusted, a handful): compiled once each. */
const patterns = new Map<string, RegExp>();
function compiledPattern(pattern: string): RegExp {
  let regexp = patterns.get(pattern);
  if (!regexp) {
    regexp = new RegExp(pattern, 'u');
    patterns.set(pattern, regexp);
  }
  return regexp;
}

function hasType(type: InnerValType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'json':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

function describeType(type: InnerValType): string {
  switch (type) {
    case 'string':
      return 'a string';
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'json':
      return 'a JSON object';
  }
}
