import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { clientOf } from '../auth/auth-failure-limiter';
import { Principal } from '../auth/principal';
import { Clock } from '../clock';
import { ProblemException } from './problem';
import { RateLimitPolicy } from './rate-limit-policy';

const WINDOW_MS = 60_000;
const SKIP_RATE_LIMIT = 'agentline:skip-rate-limit';

/** For callers whose traffic is not the organization's to pace (Meta's webhooks). */
export const SkipRateLimit = () => SetMetadata(SKIP_RATE_LIMIT, true);

/**
 * RATE_LIMIT_PER_MINUTE requests per organization across all routes (public routes: per client
 * address), in one-minute windows counted in this process. Registered after the JWT guard, so the
 * organization is known (a 401 is the JWT guard's, counted against its own limit). Every answer
 * says where the caller stands (`RateLimit-Policy` and `RateLimit`, see RateLimitPolicy); past the
 * limit, 429 problem details with Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly perOrganization: RateLimitPolicy;
  private readonly perAddress: RateLimitPolicy;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    clock: Clock,
    private readonly reflector: Reflector,
  ) {
    const limit = config.rateLimitPerMinute;
    this.perOrganization = new RateLimitPolicy('organization', limit, WINDOW_MS, clock);
    this.perAddress = new RateLimitPolicy('client-address', limit, WINDOW_MS, clock);
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.config.rateLimitPerMinute === 0 || context.getType() !== 'http') return true;
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (skip) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { user?: Principal }>();
    const standing = request.user
      ? this.perOrganization.hit(request.user.organizationId)
      : this.perAddress.hit(clientOf(request.ip));
    if (!standing.exceeded) {
      http.getResponse<Response>().set(standing.headers);
      return true;
    }
    const per = request.user ? 'an organization' : 'a client address';
    throw new ProblemException(
      'rate_limited',
      `Too many requests: at most ${this.config.rateLimitPerMinute} per minute for ${per}. Retry in ${standing.resetSeconds} s.`,
      { headers: { ...standing.headers, 'Retry-After': String(standing.resetSeconds) } },
    );
  }
}
