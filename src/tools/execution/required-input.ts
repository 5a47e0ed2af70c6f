import { ToolExecutionError, ToolInput } from './tool-executor';

/** A string field the executor cannot do without; anything else is an error the model reads. */
export function requiredString(input: ToolInput, name: string): string {
  const value = input[name];
  if (typeof value !== 'string') throw new ToolExecutionError(`${name} must be a string.`);
  return value;
}
