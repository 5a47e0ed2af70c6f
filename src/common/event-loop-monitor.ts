import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { Clock } from './clock';

/** How late the event loop ran its callbacks over the recent past, in milliseconds. */
export interface EventLoopLag {
  p99Ms: number;
  maxMs: number;
  /** How much recent time these figures cover. */
  windowMs: number;
}

export interface EventLoopMonitorOptions {
  /** How long a window of measurements lasts before the figures are published. */
  windowMs: number;
  /** A window whose worst delay exceeds this is logged as a warning. */
  warnAboveMs: number;
  /** At most one warning per this many milliseconds. */
  warnEveryMs: number;
  /** Where warnings go; the Nest logger by default. */
  warn?: (message: string) => void;
  /** The delay histogram; Node's own by default (tests give a recorded one). */
  histogram?: EventLoopDelayHistogram;
}

/** The part of perf_hooks' IntervalHistogram this monitor reads. */
export type EventLoopDelayHistogram = Pick<
  IntervalHistogram,
  'count' | 'max' | 'percentile' | 'reset' | 'enable' | 'disable'
>;

const DEFAULT_OPTIONS: EventLoopMonitorOptions = {
  windowMs: 10_000,
  warnAboveMs: 1_000,
  warnEveryMs: 60_000,
};

const NS_PER_MS = 1e6;

/**
 * The event loop's delay (perf_hooks.monitorEventLoopDelay), published per window: `lag()` is
 * what /metrics reports, and a window that held the loop more than a second is logged (once a
 * minute at most), since every request of every organization waited that long.
 */
@Injectable()
export class EventLoopMonitor implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(EventLoopMonitor.name);
  private readonly options: EventLoopMonitorOptions;
  private readonly histogram: EventLoopDelayHistogram;
  private timer?: NodeJS.Timeout;
  private windowStartedAt = 0;
  private last?: EventLoopLag;
  private lastWarningAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    options: Partial<EventLoopMonitorOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    // 10 ms resolution: finer costs timer wake-ups and says nothing more about a stall.
    this.histogram = options.histogram ?? monitorEventLoopDelay({ resolution: 10 });
  }

  onModuleInit(): void {
    this.start();
  }

  onModuleDestroy(): void {
    this.stop();
  }

  start(): void {
    if (this.timer) return;
    this.histogram.enable();
    this.windowStartedAt = this.clock.now();
    this.timer = setInterval(() => this.closeWindow(), this.options.windowMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.histogram.disable();
  }

  /**
   * The worst of the last complete window and the current one: a stall shows from the moment it
   * ends until a whole window without it has passed.
   */
  lag(): EventLoopLag {
    const current = this.current();
    if (!this.last) return current;
    return {
      p99Ms: Math.max(this.last.p99Ms, current.p99Ms),
      maxMs: Math.max(this.last.maxMs, current.maxMs),
      windowMs: this.last.windowMs + current.windowMs,
    };
  }

  private current(): EventLoopLag {
    const count = this.histogram.count;
    return {
      // The histogram holds the delay beyond the resolution; an empty one reads as no lag.
      p99Ms: count > 0 ? round(this.histogram.percentile(99) / NS_PER_MS) : 0,
      maxMs: count > 0 ? round(this.histogram.max / NS_PER_MS) : 0,
      windowMs: Math.max(0, this.clock.now() - this.windowStartedAt),
    };
  }

  private closeWindow(): void {
    this.last = this.current();
    this.histogram.reset();
    this.windowStartedAt = this.clock.now();
    const { maxMs, p99Ms, windowMs } = this.last;
    const now = this.clock.now();
    if (maxMs > this.options.warnAboveMs && now - this.lastWarningAt >= this.options.warnEveryMs) {
      this.lastWarningAt = now;
      const message = `The event loop was blocked for up to ${maxMs} ms in the last ${windowMs} ms (p99 ${p99Ms} ms): every request waited.`;
      if (this.options.warn) this.options.warn(message);
      else this.logger.warn(message);
    }
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
