import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { ProblemException } from '../http/problem';
import { AuthFailureLimiter, clientOf } from './auth-failure-limiter';
import { readBearerToken } from './bearer-token';
import { IS_PUBLIC, Principal } from './principal';
import { VerifiedTokens } from './verified-tokens';

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

const unauthorized = (detail: string) =>
  new ProblemException('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });

const clientOfRequest = (request: Request) => clientOf(request.ip ?? request.socket.remoteAddress);

const tooManyFailures = (blockedMs: number) => {
  const retryAfter = Math.max(1, Math.ceil(blockedMs / 1000));
  return new ProblemException(
    'rate_limited',
    `Too many failed authentications from this address. Retry in ${retryAfter} s.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
};

/**
 * Global and deny-by-default: only routes marked @Public() skip it. Failed authentications are
 * counted per client address; past AUTH_FAILURE_LIMIT_PER_MINUTE the address's failing requests
 * get 429 until its minute is over. A valid token always gets through: another client behind the
 * same NAT or proxy, or a JWKS outage, must not lock out the callers whose tokens are good.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly failures: AuthFailureLimiter,
    private readonly verified: VerifiedTokens,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    const bearer = readBearerToken(request);
    if ('refusal' in bearer) throw this.refusal(request, bearer.refusal);
    const known = this.verified.get(bearer.token);
    if (known) {
      request.user = known;
      return true;
    }
    const allowed = (await super.canActivate(context)) as boolean;
    if (allowed && request.user) this.verified.remember(bearer.token, request.user);
    return allowed;
  }

  /** 401, counted against the client's address; 429 once the address is past its limit. */
  private refusal(request: Request, detail: string): ProblemException {
    const client = clientOfRequest(request);
    const blockedMs = this.failures.blockedFor(client);
    if (blockedMs > 0) return tooManyFailures(blockedMs);
    this.failures.recordFailure(client);
    return unauthorized(detail);
  }

  override handleRequest<TUser = Principal>(
    error: unknown,
    user: TUser | false,
    info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (error || !user) {
      throw this.refusal(
        context.switchToHttp().getRequest<Request>(),
        error instanceof ProblemException ? error.detail : describeFailure(info ?? error),
      );
    }
    return user;
  }
}
