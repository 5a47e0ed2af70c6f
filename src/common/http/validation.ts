import {
  ArgumentMetadata,
  Injectable,
  PipeTransform,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { FieldError, validationFailed } from './problem';

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

/**
 * The global pipe: DTO classes validate strictly (unknown fields are 400) and a body that is not a
 * JSON object is refused before class-transformer can turn an array into something else.
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
    const isDto = typeof metadata.metatype === 'function' && metadata.metatype.name.endsWith('Dto');
    if (
      isDto &&
      metadata.type === 'body' &&
      (value === null || typeof value !== 'object' || Array.isArray(value))
    ) {
      throw validationFailed([], 'The request body must be a JSON object.');
    }
    return this.inner.transform(value, metadata);
  }
}
