import { ChannelMessageEntity, ChannelOptOutEntity } from './conversations/conversation.entities';
import { MessangerChannelEntity } from './kinds/messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './kinds/whatsapp/whatsapp-channel.entity';

/** The tables Channels own; registered once, by ChannelsModule (TypeORM's autoLoadEntities). */
export const CHANNELS_ENTITIES = [
  WhatsappChannelEntity,
  MessangerChannelEntity,
  ChannelMessageEntity,
  ChannelOptOutEntity,
];
