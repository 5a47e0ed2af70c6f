import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from './common/auth/principal';
import { databaseUnavailable } from './common/database-errors';
import { BareResponse } from './common/http/data-wrapper.interceptor';
import { DatabaseAvailability } from './database/database-availability';

@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(private readonly availability: DatabaseAvailability) {}

  /**
   * Readiness. Public: load balancers and docker-compose probe it without a token; it reveals
   * nothing. `503 database_unavailable` (with Retry-After) while the database does not answer
   * within a couple of seconds, so that traffic goes to replicas that can serve it.
   */
  @Public()
  @Get()
  @BareResponse()
  async check(): Promise<{ status: 'ok' }> {
    if (!(await this.availability.probe())) throw databaseUnavailable();
    return { status: 'ok' };
  }
}
