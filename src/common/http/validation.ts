import {
  ArgumentMetadata,
  Injectable,
  PipeTransform,
  Type,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { findNulCharacter } from './input-guards';
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

/**
 * The global pipe: DTO classes validate strictly (unknown fields are 400) and a body that is not a
 * JSON object is refused before class-transformer can turn an array into something else.
 *
 * Before any validation, every body, query and path value is checked for NUL characters (which
 * PostgreSQL cannot store), and unknown fields are split off by a set look-up: class-transformer
 * and class-validator then see only the DTO's own fields, so 40,000 unknown keys cost a few ms
 * instead of seconds, and are still reported with the other failures.
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
    const nulAt = findNulCharacter(value, metadata.type === 'body' ? '' : (metadata.data ?? ''));
    if (nulAt !== undefined) {
      throw validationFailed(
        [{ field: nulAt || metadata.type, message: 'must not contain NUL characters (\\u0000)' }],
        'The request contains a NUL character (\\u0000), which no field accepts.',
      );
    }
    const dto =
      typeof metadata.metatype === 'function' && metadata.metatype.name.endsWith('Dto')
        ? (metadata.metatype as Type<unknown>)
        : undefined;
    if (!dto) return this.inner.transform(value, metadata);
    if (metadata.type === 'body' && !isPlainObject(value)) {
      throw validationFailed([], 'The request body must be a JSON object.');
    }
    if (!isPlainObject(value)) return this.inner.transform(value, metadata);

    const fields = knownFields(dto);
    const known: Record<string, unknown> = {};
    const unknown: FieldError[] = [];
    for (const key of Object.keys(value)) {
      if (fields.has(key)) known[key] = value[key];
      else unknown.push({ field: key, message: `unknown field ${key}` });
    }
    if (unknown.length === 0) return this.inner.transform(value, metadata);
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
