import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  CHANNEL_TRANSPORTS,
  ChannelMessageSender,
  ChannelTransports,
} from './channel-message-sender';
import { CHANNELS_CONFIG, ChannelsConfig, readChannelsConfig } from './channels.config';
import { ChannelEvents } from './channel-events';
import { ChannelsController } from './channels.controller';
import { CHANNELS_ENTITIES } from './channels.entities';
import { ChannelsService } from './channels.service';
import { ChannelConversations } from './conversations/channel-conversations';
import { ConversationsController } from './conversations/conversations.controller';
import { ConversationsService } from './conversations/conversations.service';
import { MetaWebhooksController } from './webhooks/meta-webhooks.controller';
import { WebhookInbox } from './webhooks/webhook-inbox';
import { AgentEventsModule } from '../agent-events';
import { GraphApiClient } from './graph-api/graph-api.client';
import { MessangerTransport } from './messanger/messanger.transport';
import { WhatsappTransport } from './whatsapp/whatsapp.transport';
import { retentionOf } from '../database/retention';
import { WEBHOOK_INBOX_RETENTION } from './webhooks/webhook-inbox.retention';

/**
 * Sockets kept open to Graph. Callers bound their own concurrency (the delivery worker to
 * DELIVERY_CONCURRENCY, at most 1000); sockets are only opened when that many sends overlap.
 */
const GRAPH_API_CONNECTIONS = 1024;

/** Owns the channel tables, their tokens and the transports that send through them. */
@Module({
  imports: [TypeOrmModule.forFeature(CHANNELS_ENTITIES), AgentEventsModule],
  controllers: [ChannelsController, ConversationsController, MetaWebhooksController],
  providers: [
    { provide: CHANNELS_CONFIG, useFactory: () => readChannelsConfig(process.env) },
    ChannelsService,
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
      provide: CHANNEL_TRANSPORTS,
      inject: [GraphApiClient],
      useFactory: (graph: GraphApiClient): ChannelTransports => ({
        whatsapp: new WhatsappTransport(graph),
        messanger: new MessangerTransport(graph),
      }),
    },
    ChannelMessageSender,
    ChannelConversations,
    ConversationsService,
    WebhookInbox,
    retentionOf(WEBHOOK_INBOX_RETENTION),
    ChannelEvents,
  ],
  exports: [CHANNELS_CONFIG, ChannelMessageSender, ChannelConversations, ChannelsService],
})
export class ChannelsModule {}
