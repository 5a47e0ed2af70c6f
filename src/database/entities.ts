import { MessangerChannelEntity } from '../channels/messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from '../channels/whatsapp/whatsapp-channel.entity';
import { DeliveryEntity } from '../scheduler/entities/delivery.entity';
import { FollowUpEntity } from '../scheduler/entities/follow-up.entity';
import { ToolEntity } from '../tools/entities/tool.entity';

/** Every entity, listed explicitly so that ts-jest, ts-node and compiled code all find them. */
export const ENTITIES = [
  ToolEntity,
  WhatsappChannelEntity,
  MessangerChannelEntity,
  FollowUpEntity,
  DeliveryEntity,
];
