import { Injectable } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  LabelValues,
  Registry,
} from 'prom-client';
import { Clock } from '../common/clock';
import { findRepoRoot } from '../common/repo-root';

/** Seconds: from a millisecond to ten minutes, for request durations and lags alike. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 600];

/**
 * prom-client's default gauges named like counters, which `promtool check metrics` refuses
 * ("non-counter metrics should not have _total suffix"). They are the sums of the gauges by type
 * that stay (`nodejs_active_handles{type}` and the like): `sum(nodejs_active_handles)`.
 */
const GAUGES_NAMED_AS_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** package.json's version, read once: the build this process runs. */
const VERSION = (
  JSON.parse(readFileSync(join(findRepoRoot(), 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** What a database gauge's `read` sets: its values, applied together once the read succeeded. */
export interface GaugeValues<L extends string> {
  set(labels: LabelValues<L>, value: number): void;
}

/**
 * The process's Prometheus metrics (docs/operations.md lists them with example alerts). One
 * registry per application, not prom-client's global one, so that several apps in one process
 * (the tests) do not share counters. Counters are counted where things happen; gauges that
 * describe a module's tables are registered by that module (`gauge`) and read by `refresh`, on a
 * timer (MetricsModule), never by a scrape: scrapers must not add load to the database, and
 * during an outage a scrape still answers, with the last values read.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Histogram({
    name: 'agentline_http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status, with their duration.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly deliveries = new Counter({
    name: 'agentline_deliveries_total',
    help: 'Delivery outcomes recorded by this process: sent, retry (will be tried again), failed, skipped.',
    labelNames: ['outcome', 'channel_kind'] as const,
    registers: [this.registry],
  });

  readonly deliveryLag = new Histogram({
    name: 'agentline_delivery_lag_seconds',
    help: 'From the moment a message was due to the moment Meta accepted it.',
    labelNames: ['channel_kind'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly dispatchLag = new Histogram({
    name: 'agentline_dispatch_lag_seconds',
    help: "From a follow-up occurrence's due time to its deliveries being queued.",
    buckets: SECONDS,
    registers: [this.registry],
  });

  readonly webhookNotifications = new Counter({
    name: 'agentline_webhook_notifications_total',
    help: "Meta's webhook notifications: accepted (stored), or rejected (bad signature, unknown channel).",
    labelNames: ['channel_kind', 'result'] as const,
    registers: [this.registry],
  });

  readonly webhookSetAside = new Counter({
    name: 'agentline_webhook_set_aside_total',
    help: 'Parts of signed webhook notifications that did not apply, by item (message, status, event, change; notification for a whole one) and reason. Items are kept in webhook_items_set_aside, notifications in webhook_inbox.',
    labelNames: ['channel_kind', 'item', 'reason'] as const,
    registers: [this.registry],
  });

  readonly oauth2Refreshes = new Counter({
    name: 'agentline_oauth2_refreshes_total',
    help: 'OAuth2 access token refreshes by outcome: refreshed, refused (the grant is gone), failed.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly workerThreadStartFailures = new Counter({
    name: 'agentline_worker_thread_start_failures_total',
    help: 'Worker threads that failed to start (their script threw or exited while loading, a resource limit, the thread could not be created), by pool (tools, scheduler). Each is started again after a delay that doubles up to 10 s.',
    labelNames: ['pool'] as const,
    registers: [this.registry],
  });

  readonly workerTasksRefused = new Counter({
    name: 'agentline_worker_tasks_refused_total',
    help: "Tasks a worker pool refused at once, by pool and reason: queue_full, organization_full (the organization's share of the queue), unavailable (no thread could start).",
    labelNames: ['pool', 'reason'] as const,
    registers: [this.registry],
  });

  /** The hooks of a WorkerPool named `pool`, counting into the two counters above. */
  workerPoolEvents(pool: string): {
    onStartFailure: () => void;
    onRefusal: (reason: string) => void;
  } {
    return {
      onStartFailure: () => this.workerThreadStartFailures.inc({ pool }),
      onRefusal: (reason) => this.workerTasksRefused.inc({ pool, reason }),
    };
  }

  constructor(private readonly clock: Clock) {
    // Process metrics: CPU, memory, heap, handles, GC, and event-loop lag (nodejs_eventloop_lag_*).
    collectDefaultMetrics({ register: this.registry });
    for (const name of GAUGES_NAMED_AS_COUNTERS) this.registry.removeSingleMetric(name);
    new Gauge({
      name: 'agentline_build_info',
      help: 'Always 1; its labels say what runs: the version of agentline (package.json) and of Node.js.',
      labelNames: ['version', 'node_version'] as const,
      registers: [this.registry],
    }).set({ version: VERSION, node_version: process.version }, 1);
  }

  readonly databaseUp = new Gauge({
    name: 'agentline_database_up',
    help: "1 when this process's last refresh of the database gauges read them all, 0 when it could not (they keep the last values read).",
    registers: [this.registry],
  });

  /** 0 until a first refresh succeeds: a process that never read the database looks stale. */
  readonly databaseGaugesReadAt = new Gauge({
    name: 'agentline_database_gauges_last_success_timestamp_seconds',
    help: 'When this process last read every database gauge (Unix time, seconds; 0: never): time() minus it is the age of the values they show, which stay through an outage.',
    registers: [this.registry],
  });

  /** One read per database gauge, run by `refresh`. */
  private readonly reads: (() => Promise<void>)[] = [];

  /**
   * A gauge of what the database holds: `read` queries it and sets the values, every
   * METRICS_REFRESH_MS (see `refresh`). A read that fails leaves the last values in place.
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (values: GaugeValues<L>) => Promise<void> | void,
  ): void {
    const gauge = new Gauge<L>({ name, help, labelNames, registers: [this.registry] });
    this.reads.push(async () => {
      const values: [LabelValues<L>, number][] = [];
      await read({ set: (labels, value) => values.push([labels, value]) });
      // Replaced whole, so that a series no longer read goes, but only once the read succeeded.
      gauge.reset();
      for (const [labels, value] of values) gauge.set(labels, value);
    });
  }

  /** A gauge of this process's own state (no database), set at scrape time by `collect`. */
  processGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (gauge: GaugeValues<L>) => void,
  ): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        collect(this);
      },
    });
  }

  /**
   * Reads every database gauge; `agentline_database_up` says whether all could be read. Returns
   * the failures, for the caller to report.
   */
  async refresh(): Promise<unknown[]> {
    const results = await Promise.allSettled(this.reads.map((read) => read()));
    const failures = results.flatMap((result) =>
      result.status === 'rejected' ? [result.reason as unknown] : [],
    );
    this.databaseUp.set(failures.length === 0 ? 1 : 0);
    if (failures.length === 0) this.databaseGaugesReadAt.set(this.clock.now() / 1000);
    return failures;
  }
}
