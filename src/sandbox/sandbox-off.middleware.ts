import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ProblemException } from '../common/http/problem';
import { SANDBOX_OFF } from './sandbox-inbound.service';
import { SANDBOX_CONFIG, SandboxConfig } from './sandbox.config';

/**
 * With the sandbox off its routes answer 404 before anything else: middleware runs before the
 * token guard and the body's validation, which would otherwise answer 401 or 400 for a route that
 * is not there.
 */
@Injectable()
export class SandboxOffCheck implements NestMiddleware {
  constructor(@Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig) {}

  use(_request: unknown, _response: unknown, next: () => void): void {
    if (!this.config.enabled) throw new ProblemException('not_found', SANDBOX_OFF);
    next();
  }
}
