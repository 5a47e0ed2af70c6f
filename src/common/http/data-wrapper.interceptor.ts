import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { map, Observable } from 'rxjs';

const BARE_RESPONSE = 'agentline:bare-response';

/** The spec returns some resources without the `data` wrapper (the follow-up); mark those handlers. */
export const BareResponse = () => SetMetadata(BARE_RESPONSE, true);

/** Wraps every JSON response in `{ data: ... }`, as the spec does for tools and channels. */
@Injectable()
export class DataWrapperInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const bare = this.reflector.getAllAndOverride<boolean>(BARE_RESPONSE, [
      context.getHandler(),
      context.getClass(),
    ]);
    return next
      .handle()
      .pipe(map((body: unknown) => (bare || body === undefined ? body : { data: body })));
  }
}
