import { ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ProblemException } from '../http/problem';
import { QuotaStanding } from '../http/rate-limit-policy';
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

const unauthorized = (detail: string, challenge: string, standing?: QuotaStanding) =>
  new ProblemException('unauthorized', detail, {
    headers: { ...standing?.headers, 'WWW-Authenticate': challenge },
  });

const PROTECTED_RESOURCE = 'agentline:protected-resource';

/**
 * Marks routes that are an OAuth 2.0 protected resource with its own RFC 9728 metadata (the MCP
 * endpoint): their 401 names that document, at `/.well-known/oauth-protected-resource` followed by
 * the path asked for, under PUBLIC_URL, so that an MCP host can discover how to get a token.
 */
export const ProtectedResource = () => SetMetadata(PROTECTED_RESOURCE, true);

/** Where a resource's metadata is: this, then the resource's path (RFC 9728, section 3.1). */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The well-known location of a resource's metadata (RFC 9728, section 3.1). */
export const protectedResourceMetadataUrl = (publicUrl: string, path: string) =>
  `${publicUrl}${PROTECTED_RESOURCE_METADATA_PATH}${path}`;

const clientOfRequest = (request: Request) => clientOf(request.ip ?? request.socket.remoteAddress);

const tooManyFailures = ({ resetSeconds, headers }: QuotaStanding) =>
  new ProblemException(
    'rate_limited',
    `Too many failed authentications from this address. Retry in ${resetSeconds} s.`,
    { headers: { ...headers, 'Retry-After': String(resetSeconds) } },
  );

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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    if ('refusal' in bearer) throw this.refusal(context, bearer.refusal);
    const known = this.verified.get(bearer.token);
    if (known) {
      request.user = known;
      return true;
    }
    const allowed = (await super.canActivate(context)) as boolean;
    if (allowed && request.user) this.verified.remember(bearer.token, request.user);
    return allowed;
  }

  /**
   * 401, counted against the client's address; 429 once the address is past its limit. Both say
   * where the address stands in that limit, the one they counted against.
   */
  private refusal(context: ExecutionContext, detail: string): ProblemException {
    const request = context.switchToHttp().getRequest<Request>();
    const client = clientOfRequest(request);
    const blocked = this.failures.blocked(client);
    if (blocked) return tooManyFailures(blocked);
    const standing = this.failures.recordFailure(client);
    return unauthorized(detail, this.challenge(context, request), standing);
  }

  /** `Bearer`, naming the resource's metadata on a @ProtectedResource() route. */
  private challenge(context: ExecutionContext, request: Request): string {
    const protectedResource = this.reflector.getAllAndOverride<boolean>(PROTECTED_RESOURCE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!protectedResource) return 'Bearer';
    // The path as sent (percent-encoded); a quote or backslash would end the quoted string.
    const url = protectedResourceMetadataUrl(this.config.publicUrl, request.path);
    return `Bearer resource_metadata="${url.replace(/["\\]/g, encodeURIComponent)}"`;
  }

  override handleRequest<TUser = Principal>(
    error: unknown,
    user: TUser | false,
    info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (error || !user) {
      throw this.refusal(
        context,
        error instanceof ProblemException ? error.detail : describeFailure(info ?? error),
      );
    }
    return user;
  }
}
