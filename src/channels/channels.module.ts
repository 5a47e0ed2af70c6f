import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ChannelsController } from './channels.controller';
import { GraphApiClient } from './graph-api/graph-api.client';
import { ChannelsService } from './channels.service';
import { MessangerChannelEntity } from './messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './whatsapp/whatsapp-channel.entity';

@Module({
  imports: [TypeOrmModule.forFeature([WhatsappChannelEntity, MessangerChannelEntity])],
  controllers: [ChannelsController],
  providers: [
    ChannelsService,
    {
      provide: GraphApiClient,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): GraphApiClient =>
        new GraphApiClient({
          baseUrl: config.graphApi.url,
          timeoutMs: config.graphApi.timeoutMs,
          connections: Math.max(16, config.delivery.concurrency),
        }),
    },
  ],
  exports: [ChannelsService, GraphApiClient],
})
export class ChannelsModule {}
