/**
 * Work every process does on a timer (refreshing gauges, pruning old rows): one run at a time (a
 * slow run is not doubled by the next tick), the timer never keeps the process alive, and `stop`
 * waits for the run in flight. `run` reports its own failures; one that escapes goes to `onError`.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Runs once now, then every interval. */
  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.runNow(), this.intervalMs);
    this.timer.unref();
    void this.runNow();
  }

  /** A run now, or the one already under way. */
  runNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.run()
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
