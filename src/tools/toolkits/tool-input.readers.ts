import { JsonValue } from '../../common/json';
import { ToolExecutionError, ToolInput } from '../execution/tool-executor';

/**
 * Typed reads of an input that validateToolInput already checked against the spec; a mismatch
 * here means an executor and its spec disagree, which the error names.
 */
function read<T>(
  input: ToolInput,
  name: string,
  is: (value: JsonValue) => value is JsonValue & T,
  what: string,
): T | undefined {
  const value = input[name];
  if (value === undefined) return undefined;
  if (!is(value)) throw new ToolExecutionError(`${name} must be ${what}.`);
  return value;
}

const isString = (value: JsonValue): value is string => typeof value === 'string';
const isNumber = (value: JsonValue): value is number =>
  typeof value === 'number' && Number.isFinite(value);
const isInteger = (value: JsonValue): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value);
const isBoolean = (value: JsonValue): value is boolean => typeof value === 'boolean';
const isObject = (value: JsonValue): value is { [key: string]: JsonValue } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isStrings = (value: JsonValue): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
const isNumbers = (value: JsonValue): value is number[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'number');

export const optionalString = (input: ToolInput, name: string) =>
  read(input, name, isString, 'a string');
export const optionalNumber = (input: ToolInput, name: string) =>
  read(input, name, isNumber, 'a number');
export const optionalInteger = (input: ToolInput, name: string) =>
  read(input, name, isInteger, 'an integer');
export const optionalBoolean = (input: ToolInput, name: string) =>
  read(input, name, isBoolean, 'a boolean');
export const optionalObject = (input: ToolInput, name: string) =>
  read(input, name, isObject, 'a JSON object');
export const optionalStrings = (input: ToolInput, name: string) =>
  read(input, name, isStrings, 'an array of strings');
export const optionalNumbers = (input: ToolInput, name: string) =>
  read(input, name, isNumbers, 'an array of numbers');

export function requiredString(input: ToolInput, name: string): string {
  const value = optionalString(input, name);
  if (value === undefined) throw new ToolExecutionError(`${name} is required.`);
  return value;
}

/** An integer input with a default, refused outside [min, max] with a message the model can act on. */
export function integerInRange(
  input: ToolInput,
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: number },
): number {
  const value = optionalInteger(input, name) ?? fallback;
  if (value < min || value > max) {
    throw new ToolExecutionError(`${name} must be between ${min} and ${max}, got ${value}.`);
  }
  return value;
}

/** A non-empty string input: blank text is never a useful argument to a provider. */
export function nonBlankString(input: ToolInput, name: string): string {
  const value = requiredString(input, name);
  if (value.trim() === '') throw new ToolExecutionError(`${name} must not be empty.`);
  return value;
}
