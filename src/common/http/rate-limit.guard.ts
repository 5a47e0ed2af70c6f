import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { clientOf } from '../auth/auth-failure-limiter';
import { Principal } from '../auth/principal';
import { Clock } from '../clock';
import { ProblemException } from './problem';
import { WindowCounters } from './window-counters';

const WINDOW_MS = 60_000;
const SKIP_RATE_LIMIT = 'agentline:skip-rate-limit';

/** For callers whose traffic is not the organization's to pace (Meta's webhooks). */
export const SkipRateLimit = () => SetMetadata(SKIP_RATE_LIMIT, true);

/**
 * RATE_LIMIT_PER_MINUTE requests per organization across all routes (public routes: per client
 * address), in one-minute windows counted in this process. Registered after the JWT guard, so the
 * organization is known. Every answer says where the caller stands (RateLimit-Limit, -Remaining,
 * -Reset, in seconds); past the limit, 429 problem details with Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly requests: WindowCounters;
  private readonly limit: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
    private readonly reflector: Reflector,
  ) {
    this.limit = config.rateLimitPerMinute;
    this.requests = new WindowCounters(WINDOW_MS, clock);
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.limit === 0 || context.getType() !== 'http') return true;
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (skip) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { user?: Principal }>();
    const key = request.user ? `org:${request.user.organizationId}` : `ip:${clientOf(request.ip)}`;
    const window = this.requests.hit(key);
    const reset = String(Math.max(1, Math.ceil((window.endsAt - this.clock.now()) / 1000)));
    const response = http.getResponse<Response>();
    response.setHeader('RateLimit-Limit', this.limit);
    response.setHeader('RateLimit-Remaining', Math.max(0, this.limit - window.count));
    response.setHeader('RateLimit-Reset', reset);
    if (window.count <= this.limit) return true;
    throw new ProblemException(
      'rate_limited',
      `Too many requests: at most ${this.limit} per minute for an organization. Retry in ${reset} s.`,
      { headers: { 'Retry-After': reset } },
    );
  }
}
