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
 * ones, each value of its val_type (and enum). Every problem is reported, named `input.<name>`.
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

function checkValue(schema: ValueSchemaDefinition, value: unknown, field: string): FieldError[] {
  if (schema.val_type !== 'array') {
    const message = checkScalar(schema.val_type, schema.enum, value);
    return message ? [{ field, message }] : [];
  }
  if (!Array.isArray(value)) return [{ field, message: 'must be an array' }];
  const inner = schema.inner_val_type as InnerValType;
  const errors: FieldError[] = [];
  value.forEach((item: unknown, index) => {
    const message =
      item === null ? `must be ${describeType(inner)}` : checkScalar(inner, schema.enum, item);
    if (message) errors.push({ field: `${field}[${index}]`, message });
  });
  return errors;
}

function checkScalar(
  type: InnerValType,
  allowed: readonly string[] | undefined,
  value: unknown,
): string | undefined {
  if (!hasType(type, value)) return `must be ${describeType(type)}`;
  if (allowed && !allowed.includes(value as string)) {
    return `must be one of: ${allowed.join(', ')}`;
  }
  return undefined;
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
