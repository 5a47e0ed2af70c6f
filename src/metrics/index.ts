/**
 * What other modules may use of metrics (docs/architecture.md), a leaf that every module may
 * read: Metrics to count into, and the module, its configuration and the HTTP hooks for the
 * composition root.
 */
export { Metrics } from './metrics';
export type { GaugeValues } from './metrics';
export { MetricsModule } from './metrics.module';
export { readMetricsConfig } from './metrics.config';
export { httpMetrics } from './http-metrics';
