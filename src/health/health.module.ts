import { DynamicModule, Module, ModuleMetadata, Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { ReadinessChecks } from './readiness.checks';
import { SchedulerTicks } from './scheduler-ticks';

@Module({})
export class HealthModule {
  /**
   * `ticks` is the provider, exported by one of `imports`, whose tick state readiness reads (the
   * scheduler's engine): the composition root names it, so that health imports no feature module.
   */
  static register(options: {
    imports: NonNullable<ModuleMetadata['imports']>;
    ticks: Type<SchedulerTicks>;
  }): DynamicModule {
    return {
      module: HealthModule,
      // Terminus logs nothing itself: a failure is logged once per change by the controller.
      imports: [TerminusModule.forRoot({ logger: false }), ...options.imports],
      controllers: [HealthController],
      providers: [ReadinessChecks, { provide: SchedulerTicks, useExisting: options.ticks }],
    };
  }
}
