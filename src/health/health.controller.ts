import { Controller, Get, Logger } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckService, HealthIndicatorResult } from '@nestjs/terminus';
import { Public } from '../common/auth/principal';
import { databaseUnavailable } from '../common/database-errors';
import { BareResponse } from '../common/http/data-wrapper.interceptor';
import { ProblemException } from '../common/http/problem';
import { SkipRateLimit } from '../common/http/rate-limit.guard';
import { DatabaseAvailability } from '../database/database-availability';
import { ReadinessChecks } from './readiness.checks';

/** Seconds a load balancer is told to wait before it looks again at a replica that is not ready. */
const RETRY_AFTER_SECONDS = '5';

/**
 * Probes for load balancers and orchestrators: public (they reveal nothing), not rate limited,
 * and not access-logged when they succeed. Failures carry a reason, never a stack trace.
 */
@ApiExcludeController()
@Public()
@SkipRateLimit()
@Controller('health')
export class HealthController {
  private readonly logger = new Logger(HealthController.name);
  /** The reason readiness failed last time, to log each change once rather than every probe. */
  private notReadyBecause?: string;

  constructor(
    private readonly availability: DatabaseAvailability,
    private readonly health: HealthCheckService,
    private readonly checks: ReadinessChecks,
  ) {}

  /**
   * The database answers (`503 database_unavailable` with Retry-After when it does not within a
   * couple of seconds). Kept from the first version, for probes already pointed at it.
   */
  @Get()
  @BareResponse()
  async check(): Promise<{ status: 'ok' }> {
    if (!(await this.availability.probe())) throw databaseUnavailable();
    return { status: 'ok' };
  }

  /** Liveness: the process answers. Nothing else is looked at: restarting cannot fix a database. */
  @Get('live')
  @BareResponse()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness: the database answers, every migration is applied, and the scheduler's ticks run
   * to their end. `200` with each check's state, or `503 not_ready` naming what failed.
   */
  @Get('ready')
  @BareResponse()
  async ready(): Promise<{ status: 'ok'; checks: Record<string, HealthIndicatorResult[string]> }> {
    const result = await this.health
      .check([
        () => this.checks.database(),
        () => this.checks.migrations(),
        () => this.checks.scheduler(),
      ])
      .catch((error: { response?: { error?: Record<string, { reason?: string }> } }) => {
        const failed = Object.entries(error.response?.error ?? {}).map(
          ([name, state]) => `${name}: ${state.reason ?? 'down'}`,
        );
        const because = failed.join('; ') || 'a check failed';
        if (because !== this.notReadyBecause) this.logger.warn(`not ready: ${because}`);
        this.notReadyBecause = because;
        throw new ProblemException('not_ready', `Not ready: ${because}.`, {
          headers: { 'Retry-After': RETRY_AFTER_SECONDS },
        });
      });
    if (this.notReadyBecause !== undefined) this.logger.log('ready again');
    this.notReadyBecause = undefined;
    return { status: 'ok', checks: result.details };
  }
}
