import { createServer, Server } from 'node:http';
import {
  Global,
  Inject,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
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

  constructor(
    private readonly metrics: Metrics,
    @Inject(METRICS_CONFIG) private readonly config: MetricsConfig,
    @Inject(APP_CONFIG) private readonly app: AppConfig,
  ) {}

  /** With METRICS_PORT, a listener of its own: scrapes never meet the API's traffic or its auth. */
  async onApplicationBootstrap(): Promise<void> {
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
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }
}
