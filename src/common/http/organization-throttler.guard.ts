import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { Principal } from '../auth/principal';
import { ProblemException } from './problem';

/**
 * Requests per organization (per process; public routes per client address). Registered after the
 * JWT guard, so the organization is known; answers 429 problem details with Retry-After.
 */
@Injectable()
export class OrganizationThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(request: { user?: Principal; ip?: string }): Promise<string> {
    return request.user ? `org:${request.user.organizationId}` : `ip:${request.ip ?? 'unknown'}`;
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfter = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    throw new ProblemException(
      'rate_limited',
      `Too many requests: at most ${detail.limit} per ${Math.round(detail.ttl / 1000)} s. Retry in ${retryAfter} s.`,
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  }
}
