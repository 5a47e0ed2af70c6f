import type { Response } from 'express';
import { Clock } from '../clock';
import { WindowCounters } from './window-counters';

/** Where a key stands in its policy's current window, and the fields that say so. */
export interface QuotaStanding {
  /** More than the quota was counted in this window: the request counted last is refused. */
  exceeded: boolean;
  /** Requests left in the window (0 once it is used up). */
  remaining: number;
  /** Seconds until the window ends, at least 1: Retry-After once the quota is used up. */
  resetSeconds: number;
  /** `RateLimit-Policy` and `RateLimit`, for the answer. */
  headers: Record<string, string>;
}

/**
 * A quota of requests per key in fixed windows, counted in this process, that tells the caller
 * where it stands in the structured fields of the IETF draft (draft-ietf-httpapi-ratelimit-headers-11,
 * sections 3 and 4): `RateLimit-Policy: "organization";q=1200;w=60` (the quota and window, the same
 * on every answer) and `RateLimit: "organization";r=1199;t=60` (requests left, seconds until the
 * window ends). The key (an organization id, a client address) is not sent: the draft's optional
 * `pk` would repeat the caller's own id or address to it for nothing.
 */
export class RateLimitPolicy {
  private readonly counters: WindowCounters;
  private readonly windowSeconds: number;
  private readonly policyField: string;

  /** `name` is a token-like word: it is sent inside a quoted string as it is. */
  constructor(
    readonly name: string,
    readonly quota: number,
    windowMs: number,
    private readonly clock: Clock,
  ) {
    this.counters = new WindowCounters(windowMs, clock);
    this.windowSeconds = Math.ceil(windowMs / 1000);
    this.policyField = `"${name}";q=${quota};w=${this.windowSeconds}`;
  }

  /** Counts one more request for `key`; where it stands with this one counted. */
  hit(key: string): QuotaStanding {
    return this.standing(this.counters.hit(key));
  }

  /** Where `key` stands, without counting anything. */
  peek(key: string): QuotaStanding {
    return this.standing(this.counters.current(key));
  }

  private standing(window: { count: number; endsAt: number } | undefined): QuotaStanding {
    const count = window?.count ?? 0;
    const remaining = Math.max(0, this.quota - count);
    const resetSeconds = window
      ? Math.max(1, Math.ceil((window.endsAt - this.clock.now()) / 1000))
      : this.windowSeconds;
    return {
      exceeded: count > this.quota,
      remaining,
      resetSeconds,
      headers: {
        'RateLimit-Policy': this.policyField,
        RateLimit: `"${this.name}";r=${remaining};t=${resetSeconds}`,
      },
    };
  }
}

/**
 * The fields of a quota of things held at once rather than requests per window (the draft's
 * `qu="concurrent-requests"`, no `w` nor `t`: a place frees when a holder ends, not at a time).
 */
export function concurrencyFields(
  name: string,
  quota: number,
  held: number,
): Record<string, string> {
  return {
    'RateLimit-Policy': `"${name}";q=${quota};qu="concurrent-requests"`,
    RateLimit: `"${name}";r=${Math.max(0, quota - held)}`,
  };
}

/**
 * `fields` after the items already on `response` (both fields are Lists: one item per policy), for
 * an answer that a second limit refuses after the request limit counted it.
 */
export function withFieldsOf(
  response: Response,
  fields: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => {
      const before = response.getHeader(name);
      return [name, typeof before === 'string' ? `${before}, ${value}` : value];
    }),
  );
}
