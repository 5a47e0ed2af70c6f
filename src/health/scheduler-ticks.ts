/** Whether the scheduler runs, how long ago its last tick ended, and how often it ticks. */
export interface TickState {
  enabled: boolean;
  sinceLastTickMs?: number;
  tickMs: number;
}

/**
 * The scheduler's ticks as readiness reads them. Declared here and bound by the composition root
 * (`HealthModule.register` in app.module.ts), so that health, a leaf, imports no feature module.
 */
export abstract class SchedulerTicks {
  abstract tickState(): TickState;
}
