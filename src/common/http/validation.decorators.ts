import { ValidateIf, ValidationOptions } from 'class-validator';

/**
 * An optional field: it may be left out, but when present it is validated, `null` included.
 * class-validator's own `@IsOptional` skips `null` too, which let `{"number_id": null}` through
 * to the database. Every DTO uses this one instead (an ESLint rule keeps it so).
 */
export const IsOptionalNotNull = (options?: ValidationOptions): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined, options);
