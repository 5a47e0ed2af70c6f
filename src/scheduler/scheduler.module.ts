import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module';
import { FollowUpEntity } from './entities/follow-up.entity';
import { FollowUpsController } from './follow-ups.controller';
import { FollowUpsService } from './follow-ups.service';

@Module({
  imports: [TypeOrmModule.forFeature([FollowUpEntity]), ChannelsModule],
  controllers: [FollowUpsController],
  providers: [FollowUpsService],
})
export class SchedulerModule {}
