import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ToolsModule } from '../tools/tools.module';
import { AgentlineToolkitRegistrar } from './agentline-toolkit/agentline-toolkit.registrar';
import { DeliveryOutbox } from './delivery/delivery-outbox';
import { DeliveryWorker } from './delivery/delivery.worker';
import { createMessageComposer, MessageComposer } from './delivery/message-composer';
import { FollowUpDispatcher } from './dispatch/follow-up-dispatcher';
import { DeliveryEntity } from './entities/delivery.entity';
import { FollowUpEntity } from './entities/follow-up.entity';
import { FollowUpsController } from './follow-ups.controller';
import { FollowUpsService } from './follow-ups.service';
import { SchedulerEngine } from './scheduler.engine';
import { SchedulerWorkers } from './scheduler-workers';

@Module({
  imports: [
    ScheduleModule.forRoot(),
    TypeOrmModule.forFeature([FollowUpEntity, DeliveryEntity]),
    ChannelsModule,
    // Registers the Agentline toolkit's executors into Tools' registry.
    ToolsModule,
  ],
  controllers: [FollowUpsController],
  providers: [
    FollowUpsService,
    FollowUpDispatcher,
    DeliveryOutbox,
    DeliveryWorker,
    SchedulerEngine,
    AgentlineToolkitRegistrar,
    SchedulerWorkers,
    {
      provide: MessageComposer,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): MessageComposer =>
        createMessageComposer(
          config.llm && { ...config.llm, connections: Math.max(16, config.delivery.concurrency) },
        ),
    },
  ],
})
export class SchedulerModule {}
