import {
  ArgumentMetadata,
  createParamDecorator,
  ExecutionContext,
  PipeTransform,
} from '@nestjs/common';
import type { Request } from 'express';
import { StrictValidationPipe } from './validation';

/** The body validated as the global pipe validates a DTO body, read as `{}` when none is sent. */
class OptionalBodyPipe implements PipeTransform {
  private readonly strict = new StrictValidationPipe();

  transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    return this.strict.transform(value, { ...metadata, type: 'body', data: undefined });
  }
}

const bodyOrEmpty = createParamDecorator(
  (_data: unknown, context: ExecutionContext): unknown =>
    context.switchToHttp().getRequest<Request>().body ?? {},
);

/**
 * A request body that may be left out (every field of its DTO optional): an absent body is `{}`,
 * any body sent is validated like `@Body()`'s. OpenAPI needs its own `@ApiBody({ required: false })`.
 */
export const OptionalBody = (): ParameterDecorator => bodyOrEmpty(new OptionalBodyPipe());
