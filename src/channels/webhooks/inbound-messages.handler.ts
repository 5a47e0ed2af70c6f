import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AgentEventsOutbox } from '../../agent-events';
import { Clock } from '../../common/clock';
import { uuidv7 } from '../../common/ids';
import { toIso } from '../../common/time';
import { returnedRows } from '../../database/sql';
import { CHANNELS_CONFIG, ChannelsConfig } from '../channels.config';
import { ChannelMessageEntity } from '../conversations/conversation.entities';
import { toChannelMessageResponse } from '../conversations/conversation.mappers';
import type { InboundMessage } from './inbound-notification';
import type { WebhookChannel } from './webhook-channels';

/** A client's message from a notification: kept, its opt-out or opt-in keyword, the agent told. */
@Injectable()
export class InboundMessagesHandler {
  constructor(
    private readonly clock: Clock,
    private readonly events: AgentEventsOutbox,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
  ) {}

  /** Kept once; a new one may opt its sender out or back in, and is told to the agent. */
  async receive(
    db: EntityManager,
    channel: WebhookChannel,
    message: InboundMessage,
  ): Promise<void> {
    const now = this.clock.now();
    const entity: ChannelMessageEntity = {
      id: uuidv7(now),
      organizationId: channel.organizationId,
      channelKind: channel.kind,
      channelId: channel.id,
      sender: message.sender,
      messageId: message.messageId,
      type: message.type,
      text: message.text,
      receivedAt: new Date(message.at),
      createdAt: new Date(now),
    };
    const inserted = returnedRows<{ id: string }>(
      await db.query(
        `INSERT INTO channel_messages (id, organization_id, channel_kind, channel_id, sender, message_id,
                                       type, text, received_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (channel_id, message_id) DO NOTHING RETURNING id`,
        [
          entity.id,
          entity.organizationId,
          entity.channelKind,
          entity.channelId,
          entity.sender,
          entity.messageId,
          entity.type,
          entity.text,
          toIso(message.at),
          toIso(now),
        ],
      ),
    );
    if (inserted.length === 0) return; // a resend
    const word = message.type === 'text' ? message.text?.trim().toUpperCase() : undefined;
    if (word && this.config.optOutKeywords.has(word)) {
      await db.query(
        `INSERT INTO channel_opt_outs (channel_id, recipient, organization_id, source, opted_out_at)
         VALUES ($1, $2, $3, 'keyword', $4) ON CONFLICT (channel_id, recipient) DO NOTHING`,
        [channel.id, message.sender, channel.organizationId, toIso(message.at)],
      );
    } else if (word && this.config.optInKeywords.has(word)) {
      await db.query('DELETE FROM channel_opt_outs WHERE channel_id = $1 AND recipient = $2', [
        channel.id,
        message.sender,
      ]);
    }
    await this.events.enqueue(db, {
      type: 'message.received',
      organizationId: channel.organizationId,
      agentId: channel.agentId,
      channelId: channel.id,
      data: { ...toChannelMessageResponse(entity) },
    });
  }
}
