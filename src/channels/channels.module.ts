import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelMessageSender } from './channel-message-sender';
import { ChannelStore } from './channel-store';
import { BUILTIN_CHANNEL_KINDS } from './kinds';
import { CHANNEL_KIND_LIST, ChannelKinds } from './kinds/channel-kinds';
import { MessangerChannelsController } from './kinds/messanger/messanger-channels.controller';
import { WhatsappChannelsController } from './kinds/whatsapp/whatsapp-channels.controller';
import { WhatsappMediaClient } from './kinds/whatsapp/whatsapp-media.client';
import { WhatsappMediaController } from './kinds/whatsapp/whatsapp-media.controller';
import { WhatsappMediaService } from './kinds/whatsapp/whatsapp-media.service';
import { WhatsappMediaUploadService } from './kinds/whatsapp/whatsapp-media-upload.service';
import { WhatsappReadReceiptsController } from './kinds/whatsapp/whatsapp-read-receipts.controller';
import { WhatsappReadReceiptsService } from './kinds/whatsapp/whatsapp-read-receipts.service';
import { MessangerSenderActionsController } from './kinds/messanger/messanger-sender-actions.controller';
import { MessangerSenderActionsService } from './kinds/messanger/messanger-sender-actions.service';
import { GraphActions } from './kinds/meta/graph-call';
import {
  CHANNELS_CONFIG,
  ChannelsConfig,
  META_STAND_IN,
  MetaStandIn,
  readChannelsConfig,
  withMetaStandIn,
} from './channels.config';
import { ChannelEvents } from './channel-events';
import { CHANNELS_ENTITIES } from './channels.entities';
import { ChannelsService } from './channels.service';
import { ProviderAccounts } from './provider-accounts';
import { ChannelConversations } from './conversations/channel-conversations';
import { ConversationsController } from './conversations/conversations.controller';
import { ConversationsService } from './conversations/conversations.service';
import { ChannelMessagesController } from './messages/channel-messages.controller';
import { ChannelMessagesService } from './messages/channel-messages.service';
import { MetaWebhooksController } from './kinds/meta/meta-webhooks.controller';
import { InboundMessagesHandler } from './webhooks/inbound-messages.handler';
import { AccountErrorsHandler } from './webhooks/account-errors.handler';
import { StatusUpdatesHandler } from './webhooks/status-updates.handler';
import { IdentityChangesHandler } from './webhooks/identity-changes.handler';
import { ChannelIdentities } from './conversations/channel-identities';
import { WebhookChannels } from './webhooks/webhook-channels';
import { WebhookInbox } from './webhooks/webhook-inbox';
import { WebhookNotificationApplier } from './webhooks/webhook-notification.applier';
import { AgentEventsModule } from '../agent-events';
import { GraphApiClient } from './kinds/meta/graph-api.client';
import { retentionOf } from '../database/retention';
import { WEBHOOK_INBOX_RETENTION } from './webhooks/webhook-inbox.retention';
import { TemplateSendChecks } from './kinds/whatsapp/templates/template-send-checks';
import { WhatsappTemplateCatalog } from './kinds/whatsapp/templates/whatsapp-template-catalog';
import { WhatsappTemplateSync } from './kinds/whatsapp/templates/whatsapp-template-sync';
import { WhatsappTemplatesController } from './kinds/whatsapp/templates/whatsapp-templates.controller';
import { WhatsappTemplateUpdatesHandler } from './kinds/whatsapp/templates/whatsapp-template-updates.handler';
import { MarketingPreferencesHandler } from './webhooks/marketing-preferences.handler';

/**
 * Sockets kept open to Graph. Callers bound their own concurrency (the delivery worker to
 * DELIVERY_CONCURRENCY, at most 1000); sockets are only opened when that many sends overlap.
 */
const GRAPH_API_CONNECTIONS = 1024;

/** Owns the channel tables, their tokens and the transports that send through them. */
@Module({
  imports: [TypeOrmModule.forFeature(CHANNELS_ENTITIES), AgentEventsModule],
  controllers: [
    WhatsappChannelsController,
    MessangerChannelsController,
    ConversationsController,
    MetaWebhooksController,
    ChannelMessagesController,
    WhatsappMediaController,
    WhatsappTemplatesController,
    WhatsappReadReceiptsController,
    MessangerSenderActionsController,
  ],
  providers: [
    {
      provide: CHANNELS_CONFIG,
      // The sandbox's stand-in for Meta, when it is on (a global provider of the module above).
      inject: [{ token: META_STAND_IN, optional: true }],
      useFactory: (standIn?: MetaStandIn | null) =>
        withMetaStandIn(readChannelsConfig(process.env), standIn),
    },
    ChannelsService,
    ProviderAccounts,
    {
      provide: GraphApiClient,
      inject: [CHANNELS_CONFIG],
      useFactory: (config: ChannelsConfig): GraphApiClient =>
        new GraphApiClient({
          baseUrl: config.graphApiUrl,
          timeoutMs: config.sendTimeoutMs,
          connections: GRAPH_API_CONNECTIONS,
        }),
    },
    {
      provide: WhatsappMediaClient,
      inject: [CHANNELS_CONFIG],
      useFactory: (config: ChannelsConfig): WhatsappMediaClient =>
        new WhatsappMediaClient({
          graphApiUrl: config.graphApiUrl,
          timeoutMs: config.sendTimeoutMs,
        }),
    },
    WhatsappMediaService,
    WhatsappMediaUploadService,
    GraphActions,
    WhatsappReadReceiptsService,
    MessangerSenderActionsService,
    { provide: CHANNEL_KIND_LIST, useValue: BUILTIN_CHANNEL_KINDS },
    ChannelKinds,
    ChannelStore,
    ChannelMessageSender,
    ChannelIdentities,
    ChannelConversations,
    ConversationsService,
    WebhookChannels,
    InboundMessagesHandler,
    StatusUpdatesHandler,
    AccountErrorsHandler,
    IdentityChangesHandler,
    WebhookNotificationApplier,
    ChannelMessagesService,
    WebhookInbox,
    retentionOf(WEBHOOK_INBOX_RETENTION),
    ChannelEvents,
    WhatsappTemplateCatalog,
    TemplateSendChecks,
    WhatsappTemplateSync,
    WhatsappTemplateUpdatesHandler,
    MarketingPreferencesHandler,
  ],
  exports: [
    WhatsappTemplateCatalog,
    TemplateSendChecks,
    CHANNELS_CONFIG,
    ChannelKinds,
    ChannelMessageSender,
    ChannelConversations,
    ChannelsService,
    // The sandbox's stand-in for Meta: a channel as its provider sees it.
    ProviderAccounts,
    // Sending now: the scheduler registers its outbox with it; the Agentline toolkit sends with it.
    ChannelMessagesService,
    // For a kind's own controllers (a kind registered by another module): its inbound messages,
    // and the webhooks it receives.
    ConversationsService,
    WebhookChannels,
    WebhookInbox,
  ],
})
export class ChannelsModule {}
