import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ProblemException } from '../http/problem';
import { IS_PUBLIC, Principal } from './principal';

/** Messages of passport-jwt / jsonwebtoken that are safe and useful to repeat to the caller. */
function describeFailure(info: unknown): string {
  const message = info instanceof Error ? info.message : '';
  if (/no auth token/i.test(message)) return 'The Authorization header must be `Bearer <JWT>`.';
  if (/jwt expired/i.test(message)) return 'The token has expired.';
  if (/jwt not active/i.test(message)) return 'The token is not valid yet (nbf).';
  if (/invalid algorithm/i.test(message))
    return 'The token is signed with an algorithm that is not allowed.';
  if (/audience invalid/i.test(message)) return 'The token audience is not accepted.';
  if (/issuer invalid/i.test(message)) return 'The token issuer is not accepted.';
  if (/signature/i.test(message)) return 'The token signature is not valid.';
  return 'The token is missing or not valid.';
}

/** Global and deny-by-default: only routes marked @Public() skip it. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    return isPublic ? true : super.canActivate(context);
  }

  override handleRequest<TUser = Principal>(
    error: unknown,
    user: TUser | false,
    info: unknown,
  ): TUser {
    if (error || !user) {
      const detail =
        error instanceof ProblemException ? error.detail : describeFailure(info ?? error);
      throw new ProblemException(401, 'unauthorized', detail, undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    return user;
  }
}
