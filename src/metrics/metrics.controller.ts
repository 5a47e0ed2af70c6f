import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/auth/principal';
import { sameSecret } from '../common/crypto/same-secret';
import { ProblemException, notFound } from '../common/http/problem';
import { SkipRateLimit } from '../common/http/rate-limit.guard';
import { METRICS_CONFIG, MetricsConfig } from './metrics.config';
import { Metrics } from './metrics';

/**
 * `GET /metrics` in Prometheus' text format. Not behind the JWT guard (Prometheus holds no user
 * token): METRICS_TOKEN protects it when set; with METRICS_PORT it is served there instead, and
 * not on the API port at all.
 */
@ApiExcludeController()
@Public()
@SkipRateLimit()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    @Inject(METRICS_CONFIG) private readonly config: MetricsConfig,
  ) {}

  @Get()
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    if (this.config.port !== undefined) throw notFound('/metrics (served on METRICS_PORT)');
    if (
      this.config.token !== undefined &&
      !sameSecret(authorization ?? '', `Bearer ${this.config.token}`)
    ) {
      throw new ProblemException('unauthorized', 'Send Authorization: Bearer <METRICS_TOKEN>.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.end(await this.metrics.registry.metrics());
  }
}
