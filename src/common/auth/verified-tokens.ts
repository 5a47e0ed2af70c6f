import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { Clock } from '../clock';
import { Principal } from './principal';

/** How long a verified token is taken on trust, at most: a key dropped from the JWKS stops working within it. */
const TRUST_MS = 60_000;
const MAX_TOKENS = 5_000;

interface Verified {
  principal: Principal;
  /** When the entry stops being used: the token's exp (with the allowed skew), or TRUST_MS. */
  until: number;
}

/**
 * Tokens that passed every check, remembered briefly: an agent runtime sends the same token on
 * every call, and verifying it (signature, claims, passport) was the largest single cost of a
 * request. Envoy's jwt_authn keeps the same kind of cache. The key is the whole token, signature
 * included, so any other string is verified in full; an entry is dropped at the token's `exp`
 * (plus JWT_CLOCK_SKEW_SECONDS) and after TRUST_MS whatever its `exp`. Failures are never kept:
 * each one is verified and counted by the failure limit.
 */
@Injectable()
export class VerifiedTokens {
  private readonly tokens = new Map<string, Verified>();
  private readonly skewMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.skewMs = config.jwt.clockSkewSeconds * 1000;
  }

  get(token: string): Principal | undefined {
    const verified = this.tokens.get(token);
    if (!verified) return undefined;
    if (verified.until > this.clock.now()) return verified.principal;
    this.tokens.delete(token);
    return undefined;
  }

  /** Remembers a token that was just verified in full. */
  remember(token: string, principal: Principal): void {
    const now = this.clock.now();
    const exp = expiresAtMs(token);
    const until = Math.min(now + TRUST_MS, exp === undefined ? Infinity : exp + this.skewMs);
    if (until <= now) return;
    // Oldest first out: Map keeps insertion order.
    if (this.tokens.size >= MAX_TOKENS)
      this.tokens.delete(this.tokens.keys().next().value as string);
    this.tokens.set(token, { principal, until });
  }
}

/** The `exp` of a token whose signature was checked, in ms; undefined when it has none. */
function expiresAtMs(token: string): number | undefined {
  const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as {
    exp?: unknown;
  };
  return typeof payload.exp === 'number' ? payload.exp * 1000 : undefined;
}
