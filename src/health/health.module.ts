import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { SchedulerModule } from '../scheduler/scheduler.module';
import { HealthController } from './health.controller';
import { ReadinessChecks } from './readiness.checks';

@Module({
  // Terminus logs nothing itself: a failure is logged once per change by the controller.
  imports: [TerminusModule.forRoot({ logger: false }), SchedulerModule],
  controllers: [HealthController],
  providers: [ReadinessChecks],
})
export class HealthModule {}
