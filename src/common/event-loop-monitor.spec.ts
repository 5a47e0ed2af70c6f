import { Clock } from './clock';
import { EventLoopDelayHistogram, EventLoopMonitor } from './event-loop-monitor';

/**
 * A histogram fed by the test: the windowing, the published figures and the warning rate are
 * judged on recorded delays and fake timers, so a loaded machine cannot change the outcome. (The
 * real monitorEventLoopDelay is exercised by test/event-loop.alone-spec.ts, which runs alone.)
 */
class RecordedHistogram implements EventLoopDelayHistogram {
  private delaysNs: number[] = [];
  enabled = false;

  record(ms: number): void {
    this.delaysNs.push(ms * 1e6);
  }
  get count(): number {
    return this.delaysNs.length;
  }
  get max(): number {
    return Math.max(0, ...this.delaysNs);
  }
  percentile(percentile: number): number {
    const sorted = [...this.delaysNs].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil((percentile / 100) * sorted.length) - 1)] ?? 0;
  }
  reset(): void {
    this.delaysNs = [];
  }
  enable(): boolean {
    this.enabled = true;
    return true;
  }
  disable(): boolean {
    this.enabled = false;
    return true;
  }
}

class DateClock extends Clock {
  now(): number {
    return Date.now();
  }
}

describe('EventLoopMonitor', () => {
  let histogram: RecordedHistogram;
  let warnings: string[];
  let monitor: EventLoopMonitor;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    histogram = new RecordedHistogram();
    warnings = [];
    monitor = new EventLoopMonitor(new DateClock(), {
      windowMs: 100,
      warnAboveMs: 150,
      warnEveryMs: 60_000,
      warn: (message) => warnings.push(message),
      histogram,
    });
    monitor.start();
  });
  afterEach(() => {
    monitor.stop();
    jest.useRealTimers();
  });

  it('reads an empty histogram as no lag, and measures the window it covers', () => {
    jest.advanceTimersByTime(40);
    expect(monitor.lag()).toEqual({ p99Ms: 0, maxMs: 0, windowMs: 40 });
    expect(histogram.enabled).toBe(true);
  });

  it('reports a small lag while the loop is free, without a warning', () => {
    for (let i = 0; i < 25; i += 1) {
      histogram.record(1.234);
      jest.advanceTimersByTime(10);
    }
    expect(monitor.lag().maxMs).toBe(1.2);
    expect(monitor.lag().windowMs).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
  });

  it('shows a stall from the moment it ends until a whole window without it has passed', () => {
    histogram.record(300);
    expect(monitor.lag()).toMatchObject({ maxMs: 300, p99Ms: 300 });
    jest.advanceTimersByTime(100); // the window holding the stall closes
    expect(monitor.lag().maxMs).toBe(300);
    histogram.record(2);
    jest.advanceTimersByTime(100); // a window without it closes
    expect(monitor.lag().maxMs).toBe(2);
  });

  it('warns about a window above the bound once a minute at most', () => {
    histogram.record(300);
    jest.advanceTimersByTime(100);
    histogram.record(300);
    jest.advanceTimersByTime(100);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBe(
      'The event loop was blocked for up to 300 ms in the last 100 ms (p99 300 ms): every request waited.',
    );
    jest.advanceTimersByTime(60_000);
    histogram.record(200);
    jest.advanceTimersByTime(100);
    expect(warnings).toHaveLength(2);
  });

  it('does not warn about a window at the bound', () => {
    histogram.record(150);
    jest.advanceTimersByTime(100);
    expect(warnings).toEqual([]);
  });

  it('stops measuring when stopped', () => {
    monitor.stop();
    expect(histogram.enabled).toBe(false);
  });
});
