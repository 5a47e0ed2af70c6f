import { SystemClock } from './clock';
import { EventLoopMonitor } from './event-loop-monitor';

/** Holds the event loop, as a super-linear tool on the main thread used to. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventLoopMonitor', () => {
  const warnings: string[] = [];
  const monitor = new EventLoopMonitor(new SystemClock(), {
    windowMs: 100,
    warnAboveMs: 150,
    warnEveryMs: 60_000,
    warn: (message) => warnings.push(message),
  });
  beforeAll(() => monitor.start());
  afterAll(() => monitor.stop());

  it('reports a small lag while the loop is free', async () => {
    await tick(250);
    expect(monitor.lag().maxMs).toBeLessThan(150);
    expect(monitor.lag().windowMs).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
  });

  it('reports a blocked loop in the next window and warns once a minute at most', async () => {
    block(300);
    await tick(20);
    expect(monitor.lag().maxMs).toBeGreaterThanOrEqual(250);
    expect(monitor.lag().p99Ms).toBeGreaterThanOrEqual(250);
    await tick(250);
    block(300);
    await tick(250);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^The event loop was blocked for up to \d+(\.\d)? ms/);
  });

  it('forgets a stall once a window without one has passed', async () => {
    await tick(450);
    expect(monitor.lag().maxMs).toBeLessThan(150);
  });
});
