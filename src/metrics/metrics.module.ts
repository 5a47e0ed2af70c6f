import { createServer, Server } from 'node:http';
import {
  Global,
  Inject,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { PeriodicTask } from '../common/periodic-task';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseAvailability } from '../database/database-availability';
import { METRICS_CONFIG, MetricsConfig, readMetricsConfig } from './metrics.config';
import { MetricsController } from './metrics.controller';
import { Metrics } from './metrics';

/** Metrics for every module (global): they count into Metrics, and register their gauges. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    Metrics,
    { provide: METRICS_CONFIG, useFactory: () => readMetricsConfig(process.env) },
  ],
  exports: [Metrics],
})
export class MetricsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsModule.name);
  private server?: Server;
  private readonly refresher: PeriodicTask;

  constructor(
    private readonly metrics: Metrics,
    @Inject(METRICS_CONFIG) private readonly config: MetricsConfig,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    availability: DatabaseAvailability,
  ) {
    this.refresher = new PeriodicTask(
      async () => {
        for (const failure of await this.metrics.refresh()) {
          // An outage is logged once, by DatabaseAvailability; anything else is a bug of a read.
          if (!availability.reportFailure(failure)) {
            this.logger.warn({ err: failure }, 'a database gauge could not be read');
          }
        }
      },
      config.refreshMs,
      (error) => this.logger.warn({ err: error }, 'the database gauges could not be refreshed'),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    // Every replica reads the gauges itself, so any of them can be scraped.
    this.refresher.start();
    await this.listen();
  }

  /** With METRICS_PORT, a listener of its own: scrapes never meet the API's traffic or its auth. */
  private async listen(): Promise<void> {
    if (this.config.port === undefined) return;
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.metrics.registry.metrics().then(
        (text) =>
          res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.port, this.app.host ?? undefined, () => resolve());
    });
    this.server = server;
    this.logger.log(`metrics on port ${this.config.port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.refresher.stop();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
