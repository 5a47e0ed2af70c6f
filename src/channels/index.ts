/** What other modules may use of channels (docs/architecture.md, "Module boundaries"). */
export { ChannelMessageSender, describeUnusable, isUnusable } from './channel-message-sender';
export type { ChannelDeactivation, ChannelUnusable, OpenChannel } from './channel-message-sender';
export { sentMessageType } from './channel-transport';
export type { ChannelKind, OutboundMessage, RichMessage, SendOutcome } from './channel-transport';
export { CHANNELS_CONFIG, META_STAND_IN, readChannelsConfig } from './channels.config';
export type { ChannelsConfig, MetaStandIn } from './channels.config';
export { ProviderAccounts } from './provider-accounts';
export type { ProviderAccount } from './provider-accounts';
export { ChannelsModule } from './channels.module';
export { ChannelsService } from './channels.service';
export type { ChannelRemoval } from './channels.service';
export {
  ChannelConversations,
  conversationKey,
  watermarkLockKey,
} from './conversations/channel-conversations';
export type { ChannelStatusUpdate, ConversationState } from './conversations/channel-conversations';
export type { Page } from './conversations/conversations.service';
export { BUILTIN_CHANNEL_KINDS } from './kinds';
export { ChannelKinds } from './kinds/channel-kinds';
export {
  FollowUpTemplateDto,
  SendMessangerMessageDto,
  SendWhatsappMessageDto,
  toMessageTemplate,
} from './messages/channel-message.dto';
export { ChannelMessagesService } from './messages/channel-messages.service';
export {
  DeliveryAttemptDto,
  DeliveryDto,
  DeliveryPageDto,
  DELIVERY_STATUSES,
  ListDeliveriesQueryDto,
  MAX_LISTED_ATTEMPTS,
  MESSAGE_TYPES,
} from './messages/delivery.dto';
export type { DeliveryStatus, MessageType } from './messages/delivery.dto';
export type { MessagePricing as DeliveryPricing } from './webhooks/inbound-notification';
export type { MessageOutbox, OutgoingMessage } from './messages/message-outbox';
export { WhatsappTemplateCatalog } from './kinds/whatsapp/templates/whatsapp-template-catalog';
export {
  TEMPLATE_INVALID,
  TemplateSendChecks,
} from './kinds/whatsapp/templates/template-send-checks';
export {
  describeTemplateProblems,
  templateProblems,
} from './kinds/whatsapp/templates/template-checks';
export {
  fillTemplateStrings,
  templateValueProblems,
  templateValues,
} from './kinds/whatsapp/templates/template-message.dto';
export type { MessageTemplate } from './kinds/whatsapp/templates/template-message.dto';
export type {
  CatalogTemplate,
  TemplateLookup,
  TemplateRef,
} from './kinds/whatsapp/templates/whatsapp-template-catalog';
export { metaSignature } from './kinds/meta/meta-signature';
