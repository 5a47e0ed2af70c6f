import {
  ArgumentMetadata,
  Injectable,
  PipeTransform,
  Type,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { findUnacceptableValue, UNACCEPTABLE_DETAILS, UNACCEPTABLE_MESSAGES } from './input-guards';
import { freeFormFields } from './validation.decorators';
import { validatedQuickly } from './validation-fast-path';
import { FieldError, ProblemException, validationFailed } from './problem';

/** Flattens class-validator's tree into `{ field, message }` pairs with dotted paths. */
export function toFieldErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      message: message.replace(/^property (\S+) should not exist$/, 'unknown field $1'),
    }));
    return [...own, ...toFieldErrors(error.children ?? [], field)];
  });
}

const knownFieldsByDto = new WeakMap<Type<unknown>, ReadonlySet<string>>();

/** The properties a DTO class declares (its own and inherited), from class-validator's metadata. */
function knownFields(dto: Type<unknown>): ReadonlySet<string> {
  let fields = knownFieldsByDto.get(dto);
  if (!fields) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    fields = new Set(metadata.map((entry) => entry.propertyName));
    knownFieldsByDto.set(dto, fields);
  }
  return fields;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A NUL, an unpaired surrogate, a number beyond a double or an object too wide: a `400`. */
function refuseUnacceptable(value: unknown, metadata: ArgumentMetadata): void {
  const unacceptable = findUnacceptableValue(
    value,
    metadata.type === 'body' ? '' : (metadata.data ?? ''),
  );
  if (unacceptable) {
    throw validationFailed(
      [
        {
          field: unacceptable.field || metadata.type,
          message: UNACCEPTABLE_MESSAGES[unacceptable.reason],
        },
      ],
      UNACCEPTABLE_DETAILS[unacceptable.reason],
    );
  }
}

/**
 * The global pipe: DTO classes validate strictly (unknown fields are 400) and a body that is not a
 * JSON object is refused before class-transformer can turn an array into something else.
 *
 * Before any validation, every body, query and path value is checked by one linear pass for what
 * no field accepts (findUnacceptableValue: NUL, unpaired surrogates, numbers beyond a double, more
 * than 1,000 keys in one object). Unknown fields are then split off by a set look-up, and
 * free-form fields (`@FreeFormJson`) replaced by an empty stand-in: class-transformer, whose key
 * handling is quadratic, never sees a key the caller chose.
 */
@Injectable()
export class StrictValidationPipe implements PipeTransform {
  private readonly inner = new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(toFieldErrors(errors)),
  });

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'custom') return value;
    const dto =
      typeof metadata.metatype === 'function' && metadata.metatype.name.endsWith('Dto')
        ? (metadata.metatype as Type<unknown>)
        : undefined;
    if (!dto || !isPlainObject(value)) {
      if (dto && metadata.type === 'body') {
        throw validationFailed([], 'The request body must be a JSON object.');
      }
      refuseUnacceptable(value, metadata);
      return this.inner.transform(value, metadata);
    }

    const fields = knownFields(dto);
    const freeForm = freeFormFields(dto);
    const known: Record<string, unknown> = {};
    const callerJson: Record<string, unknown> = {};
    const unknown: FieldError[] = [];
    for (const key of Object.keys(value)) {
      if (!fields.has(key)) unknown.push({ field: key, message: `unknown field ${key}` });
      else if (freeForm.has(key)) {
        callerJson[key] = value[key];
        known[key] = standIn(value[key]);
      } else known[key] = value[key];
    }
    const crowded = Object.keys(known).find(
      (key) => !freeForm.has(key) && holdsMoreKeys(known[key], MAX_TYPED_FIELD_KEYS),
    );
    if (crowded !== undefined) {
      throw validationFailed(
        [
          {
            field: crowded,
            message: `must not hold more than ${MAX_TYPED_FIELD_KEYS} keys in all`,
          },
        ],
        UNACCEPTABLE_DETAILS.too_many_keys,
      );
    }
    // After the count, which stops at the bound: this one walks every key of the body.
    refuseUnacceptable(value, metadata);
    if (unknown.length === 0) {
      // A body of primitives that passes every rule needs neither class-transformer nor the
      // executor; any other goes through the pipe, which builds the errors.
      const instance =
        validatedQuickly(dto, known) ??
        ((await this.inner.transform(known, metadata)) as Record<string, unknown>);
      return Object.assign(instance, callerJson);
    }
    let errors = unknown;
    try {
      await this.inner.transform(known, metadata);
    } catch (error) {
      if (!(error instanceof ProblemException)) throw error;
      errors = [...(error.errors ?? []), ...unknown];
    }
    throw validationFailed(errors);
  }
}

/**
 * Keys a typed field's value may hold in all, at every depth. class-transformer's key handling is
 * quadratic per object: 145 objects of 1,000 keys in `client_phone_numbers` (a 1 MiB body) took
 * 250 ms of the event loop. No typed field needs more than a few dozen (a template has three).
 */
const MAX_TYPED_FIELD_KEYS = 1000;

/** Whether `value` holds more than `budget` object keys, counted until the budget is spent. */
function holdsMoreKeys(value: unknown, budget: number): boolean {
  let left = budget;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (const item of current) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    for (const key in current) {
      if (--left < 0) return true;
      pending.push((current as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/** What class-transformer sees of a free-form value: its kind, none of its keys. */
const standIn = (value: unknown): unknown =>
  Array.isArray(value) ? [] : value !== null && typeof value === 'object' ? {} : value;
