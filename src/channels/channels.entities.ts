import {
  ChannelIdentityEntity,
  ChannelMessageEntity,
  ChannelMarketingOptOutEntity,
  ChannelOptOutEntity,
} from './conversations/conversation.entities';
import { BUILTIN_CHANNEL_KINDS } from './kinds';
import { WhatsappTemplateEntity } from './kinds/whatsapp/templates/whatsapp-template.entity';

/** The tables Channels own; registered once, by ChannelsModule (TypeORM's autoLoadEntities). */
export const CHANNELS_ENTITIES = [
  ...BUILTIN_CHANNEL_KINDS.map((descriptor) => descriptor.entity),
  ChannelMessageEntity,
  ChannelOptOutEntity,
  ChannelIdentityEntity,
  ChannelMarketingOptOutEntity,
  WhatsappTemplateEntity,
];
