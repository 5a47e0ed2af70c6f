import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CHANNELS_CONFIG, ChannelsConfig, ChannelsModule } from '../channels';
import { ChannelMessageOutbox } from './channel-message-outbox';
import { DeliveryOutbox } from './delivery/delivery-outbox';
import { DeliveryEvents } from './delivery/delivery-events';
import { DeliveryStatuses } from './delivery/delivery-statuses';
import { DeliveryWorker } from './delivery/delivery.worker';
import { AgentEventsModule } from '../agent-events';
import { IdempotencyModule } from '../common/idempotency/idempotency.module';
import { createMessageComposer, MessageComposer } from './delivery/message-composer';
import { FollowUpDispatcher } from './dispatch/follow-up-dispatcher';
import { FollowUpsController } from './follow-ups.controller';
import { FollowUpsService } from './follow-ups.service';
import { readSchedulerConfig, SCHEDULER_CONFIG, SchedulerConfig } from './scheduler.config';
import { SCHEDULER_ENTITIES } from './scheduler.entities';
import { SchedulerEngine } from './scheduler.engine';
import { SchedulerMetrics } from './scheduler.metrics';
import { SchedulerWorkers } from './scheduler-workers';
import { retentionOf } from '../database/retention';
import { DELIVERY_ATTEMPTS_RETENTION } from './delivery/delivery-attempts.retention';

@Module({
  imports: [
    ScheduleModule.forRoot(),
    TypeOrmModule.forFeature(SCHEDULER_ENTITIES),
    ChannelsModule,
    AgentEventsModule,
    IdempotencyModule,
  ],
  controllers: [FollowUpsController],
  providers: [
    {
      provide: SCHEDULER_CONFIG,
      inject: [CHANNELS_CONFIG],
      useFactory: (channels: ChannelsConfig) => readSchedulerConfig(process.env, channels),
    },
    FollowUpsService,
    ChannelMessageOutbox,
    FollowUpDispatcher,
    DeliveryOutbox,
    retentionOf(DELIVERY_ATTEMPTS_RETENTION),
    DeliveryWorker,
    DeliveryStatuses,
    DeliveryEvents,
    SchedulerEngine,
    SchedulerMetrics,
    SchedulerWorkers,
    {
      provide: MessageComposer,
      inject: [SCHEDULER_CONFIG],
      useFactory: (config: SchedulerConfig): MessageComposer =>
        createMessageComposer(
          config.llm && { ...config.llm, connections: Math.max(16, config.delivery.concurrency) },
        ),
    },
  ],
  // For the Agentline toolkit, whose follow-up tools act as the HTTP API does.
  exports: [FollowUpsService, SchedulerWorkers, SchedulerEngine],
})
export class SchedulerModule {}
