import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsController } from './channels.controller';
import { ChannelsService } from './channels.service';
import { MessangerChannelEntity } from './messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './whatsapp/whatsapp-channel.entity';

@Module({
  imports: [TypeOrmModule.forFeature([WhatsappChannelEntity, MessangerChannelEntity])],
  controllers: [ChannelsController],
  providers: [ChannelsService],
  exports: [ChannelsService],
})
export class ChannelsModule {}
