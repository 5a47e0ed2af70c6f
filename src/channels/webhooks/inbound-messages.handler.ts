import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AgentEventsOutbox } from '../../agent-events';
import { Clock } from '../../common/clock';
import { uuidv7 } from '../../common/ids';
import { toIso } from '../../common/time';
import { returnedRows } from '../../database/sql';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { CHANNELS_CONFIG, ChannelsConfig } from '../channels.config';
import { ChannelMessageEntity } from '../conversations/conversation.entities';
import { mediaUrl, toChannelMessageResponse } from '../conversations/conversation.mappers';
import { ChannelKinds } from '../kinds/channel-kinds';
import { ChannelIdentities } from '../conversations/channel-identities';
import { IdentityChangesHandler } from './identity-changes.handler';
import type { InboundMessage } from './inbound-notification';
import type { WebhookChannel } from './webhook-channels';

/** A client's message from a notification: kept, its opt-out or opt-in keyword, the agent told. */
@Injectable()
export class InboundMessagesHandler {
  constructor(
    private readonly clock: Clock,
    private readonly events: AgentEventsOutbox,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
    private readonly kinds: ChannelKinds,
    private readonly identities: ChannelIdentities,
    private readonly identityChanges: IdentityChangesHandler,
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
      senderUserId: message.senderUserId,
      profile: message.profile,
      messageId: message.messageId,
      type: message.type,
      text: message.text,
      content: message.content,
      context: message.context,
      referral: message.referral,
      raw: message.raw,
      opensWindow: message.opensWindow,
      receivedAt: new Date(message.at),
      createdAt: new Date(now),
    };
    const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
    const inserted = returnedRows<{ id: string }>(
      await db.query(
        `INSERT INTO channel_messages (id, organization_id, channel_kind, channel_id, sender, sender_user_id,
                                       profile, message_id, type, text, content, context, referral, raw,
                                       opens_window, received_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11::jsonb, $12::jsonb, $13::jsonb,
                 $14::jsonb, $15, $16, $17)
         ON CONFLICT (channel_id, message_id) DO NOTHING RETURNING id`,
        [
          entity.id,
          entity.organizationId,
          entity.channelKind,
          entity.channelId,
          entity.sender,
          entity.senderUserId,
          json(entity.profile),
          entity.messageId,
          entity.type,
          entity.text,
          json(entity.content),
          json(entity.context),
          json(entity.referral),
          json(entity.raw ?? null),
          entity.opensWindow,
          toIso(message.at),
          toIso(now),
        ],
      ),
    );
    if (inserted.length === 0) return; // a resend
    await this.learnIdentity(db, channel, message);
    await this.applyKeywords(db, channel, message);
    await this.events.enqueue(db, {
      type: 'message.received',
      organizationId: channel.organizationId,
      agentId: channel.agentId,
      channelId: channel.id,
      data: {
        ...toChannelMessageResponse(
          entity,
          mediaUrl(this.appConfig.publicUrl, channel, this.kinds.get(channel.kind).downloadsMedia),
        ),
      },
    });
  }

  /**
   * A message that names its sender by phone and BSUID links the two (opt-outs and the window
   * then see one person); a notice of a changed number or id says more (IdentityChangesHandler).
   */
  private async learnIdentity(
    db: EntityManager,
    channel: WebhookChannel,
    message: InboundMessage,
  ): Promise<void> {
    // Not a notice (opensWindow false): a changed number's notice names the old number, which is
    // not the person any more; the notice's own identity says what changed.
    if (message.sender !== null && message.senderUserId !== null && message.opensWindow) {
      await this.identities.link(db, {
        organizationId: channel.organizationId,
        channelId: channel.id,
        kind: channel.kind,
        forms: [message.sender, message.senderUserId],
        source: 'message',
        at: message.at,
      });
    }
    if (message.identity) {
      await this.identityChanges.learn(db, channel, message.identity, message.at);
    }
  }

  /**
   * The first of the message's words that is a keyword opts its sender out or back in: typed
   * text, or a button's payload or title (a template's "Stop promotions" quick reply).
   */
  private async applyKeywords(
    db: EntityManager,
    channel: WebhookChannel,
    message: InboundMessage,
  ): Promise<void> {
    const recipient = message.sender ?? message.senderUserId;
    if (recipient === null) return;
    for (const keyword of message.keywords) {
      const word = keyword.trim().toUpperCase();
      if (this.config.optOutKeywords.has(word)) {
        await db.query(
          `INSERT INTO channel_opt_outs (channel_id, recipient, organization_id, source, opted_out_at)
           VALUES ($1, $2, $3, 'keyword', $4) ON CONFLICT (channel_id, recipient) DO NOTHING`,
          [channel.id, recipient, channel.organizationId, toIso(message.at)],
        );
        return;
      }
      if (this.config.optInKeywords.has(word)) {
        // The person opts back in, whichever of their forms the opt-out was recorded under.
        const forms = await this.identities.formsOfOne(db, {
          channelId: channel.id,
          kind: channel.kind,
          recipient,
        });
        await db.query(
          'DELETE FROM channel_opt_outs WHERE channel_id = $1 AND recipient = ANY($2::text[])',
          [channel.id, forms],
        );
        return;
      }
    }
  }
}
