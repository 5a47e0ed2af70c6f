import { MessangerChannelEntity } from '../channels/messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from '../channels/whatsapp/whatsapp-channel.entity';
import { DeliveryEntity } from '../scheduler/entities/delivery.entity';
import { FollowUpEntity } from '../scheduler/entities/follow-up.entity';
import { OAuth2GrantEntity } from '../tools/entities/oauth2-grant.entity';
import { OAuth2StateEntity } from '../tools/entities/oauth2-state.entity';
import { ToolEntity } from '../tools/entities/tool.entity';
import { ToolExecutionEntity } from '../tools/execution/tool-execution.entity';

/** Every entity, listed explicitly so that ts-jest, ts-node and compiled code all find them. */
export const ENTITIES = [
  ToolEntity,
  WhatsappChannelEntity,
  MessangerChannelEntity,
  FollowUpEntity,
  DeliveryEntity,
  OAuth2GrantEntity,
  OAuth2StateEntity,
  ToolExecutionEntity,
];
