import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { DataWrapperInterceptor } from '../http/data-wrapper.interceptor';
import { IdempotencyKeys } from './idempotency-keys';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * The one global interceptor: idempotency outside (a replay answers the wrapped body exactly as
 * it was sent), the `{ data }` wrapper inside. One interceptor, not two, because Nest wraps each
 * global interceptor of every request in its own deferred observable and AsyncResource (about 3%
 * of a channel create's CPU for the two).
 */
@Injectable()
export class ApiResponseInterceptor implements NestInterceptor {
  private readonly idempotency: IdempotencyInterceptor;
  private readonly wrapper: DataWrapperInterceptor;

  constructor(reflector: Reflector, keys: IdempotencyKeys) {
    this.idempotency = new IdempotencyInterceptor(reflector, keys);
    this.wrapper = new DataWrapperInterceptor(reflector);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return this.idempotency.intercept(context, {
      handle: () => this.wrapper.intercept(context, next),
    });
  }
}
