/**
 * What other modules may use of health (docs/architecture.md), a leaf: the module for the
 * composition root, and the port through which readiness reads the scheduler's ticks.
 */
export { HealthModule } from './health.module';
export { SchedulerTicks } from './scheduler-ticks';
export type { TickState } from './scheduler-ticks';
