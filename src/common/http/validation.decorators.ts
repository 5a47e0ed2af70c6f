import { ValidateIf, ValidationOptions } from 'class-validator';

/**
 * An optional field: it may be left out, but when present it is validated, `null` included.
 * class-validator's own `@IsOptional` skips `null` too, which let `{"number_id": null}` through
 * to the database. Every DTO uses this one instead (an ESLint rule keeps it so).
 */
export const IsOptionalNotNull = (options?: ValidationOptions): PropertyDecorator =>
  ValidateIf((_object: object, value: unknown) => value !== undefined, options);

const freeFormFieldsByClass = new WeakMap<object, Set<string>>();

/**
 * A field that holds caller-defined JSON (tool `params`, an execution's `input`): the validation
 * pipe hands class-transformer an empty stand-in of the same kind (`{}` or `[]`) and puts the
 * caller's value back afterwards. class-transformer walks every key of an object it converts, and
 * its key de-duplication is quadratic: 120,000 keys held the event loop for 15 s. The field's
 * class-validator rules still run, on the stand-in, so they may only judge the value's kind.
 */
export const FreeFormJson = (): PropertyDecorator => (target, property) => {
  const fields = freeFormFieldsByClass.get(target.constructor) ?? new Set<string>();
  fields.add(String(property));
  freeFormFieldsByClass.set(target.constructor, fields);
};

const freeFormFieldsOfDto = new WeakMap<object, ReadonlySet<string>>();

/** The free-form fields of a DTO class and of the classes it extends (decorators ran at load). */
export function freeFormFields(dto: object): ReadonlySet<string> {
  let fields = freeFormFieldsOfDto.get(dto);
  if (!fields) {
    fields = collectFreeFormFields(dto);
    freeFormFieldsOfDto.set(dto, fields);
  }
  return fields;
}

function collectFreeFormFields(dto: object): ReadonlySet<string> {
  const fields = new Set<string>();
  for (let at: unknown = dto; typeof at === 'function'; at = Object.getPrototypeOf(at)) {
    for (const field of freeFormFieldsByClass.get(at) ?? []) fields.add(field);
  }
  return fields;
}
