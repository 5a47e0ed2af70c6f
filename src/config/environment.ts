import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { assertDeclared } from './env-declaration';

/** A configuration the service must not start with; main.ts prints its message as one line. */
export class ConfigError extends Error {}

// A word that is neither stays a string and fails @IsBoolean: `JWT_REQUIRE_EXP=flase` must not
// quietly turn a check off.
export const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(word)) return true;
  if (['0', 'false', 'no', 'off'].includes(word)) return false;
  return value;
};
export const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
export const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

/** The variables that are set; an empty value counts as unset, so that its default applies. */
export function presentVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
}

function describe(errors: ValidationError[]): string {
  return errors
    .map((error) => `${error.property}: ${Object.values(error.constraints ?? {}).join(', ')}`)
    .join('; ');
}

/**
 * One module's variables: `cls` declares them with class-validator (defaults as initializers) and
 * `@Env` (what each is for; see env-declaration.ts); variables it does not declare are ignored, so
 * each module reads the same environment.
 */
export function readEnvironment<T extends object>(cls: new () => T, env: NodeJS.ProcessEnv): T {
  assertDeclared(cls);
  const vars = plainToInstance(cls, presentVariables(env));
  const errors = validateSync(vars, { skipMissingProperties: false });
  if (errors.length > 0) {
    throw new ConfigError(`Invalid configuration: ${describe(errors)}`);
  }
  return vars;
}
