import { Inject, Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Clock } from '../clock';
import { QuotaStanding, RateLimitPolicy } from '../http/rate-limit-policy';

const WINDOW_MS = 60_000;

/**
 * The client a failure is charged to: its IPv4 address, or the /64 prefix of its IPv6 address
 * (one subscriber usually holds a whole /64, so single IPv6 addresses would be free to rotate).
 */
export function clientOf(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 (::ffff:1.2.3.4) becomes IPv4
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...prefix, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * Counts failed authentications per client in fixed one-minute windows (per process, in memory,
 * like the API rate limit). A client that reached the limit is refused, without its token being
 * looked at, until its window ends: guessing and hammering with bad tokens costs one minute per
 * AUTH_FAILURE_LIMIT_PER_MINUTE tries. Successful requests are not counted. Its 401s and 429s
 * carry its policy, `auth-failures`, in `RateLimit-Policy` and `RateLimit`.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly failures?: RateLimitPolicy;

  constructor(@Inject(APP_CONFIG) config: AppConfig, clock: Clock) {
    const limit = config.authFailureLimitPerMinute;
    if (limit !== 0) this.failures = new RateLimitPolicy('auth-failures', limit, WINDOW_MS, clock);
  }

  /** Where `client` stands when it reached the limit (refuse it), else undefined. */
  blocked(client: string): QuotaStanding | undefined {
    const standing = this.failures?.peek(client);
    return standing?.remaining === 0 ? standing : undefined;
  }

  /** Counts a failure; where `client` stands with it counted (undefined when the limit is off). */
  recordFailure(client: string): QuotaStanding | undefined {
    return this.failures?.hit(client);
  }
}
