import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AgentEvent, AgentEventsOutbox } from '../../agent-events';
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

/** A client's message and the channel it is for. */
export interface ReceivedMessage {
  channel: WebhookChannel;
  message: InboundMessage;
}

const json = (value: unknown) =>
  value === null || value === undefined ? null : JSON.stringify(value);

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

  /**
   * Each kept once, in one statement for all of them (a batch of notifications' messages); each
   * new one, in order, may opt its sender out or back in, and is told to the agent.
   */
  async receive(db: EntityManager, received: readonly ReceivedMessage[]): Promise<void> {
    if (received.length === 0) return;
    const now = this.clock.now();
    const entities = received.map(({ channel, message }): ChannelMessageEntity => ({
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
    }));
    // In their order: of two with the same Meta id (a resend in the same batch), the first is kept.
    const inserted = new Set(
      returnedRows<{ id: string }>(
        await db.query(
          `INSERT INTO channel_messages (id, organization_id, channel_kind, channel_id, sender, sender_user_id,
                                         profile, message_id, type, text, content, context, referral, raw,
                                         opens_window, received_at, created_at)
           SELECT m.id, m.organization_id, m.channel_kind, m.channel_id, m.sender, m.sender_user_id,
                  m.profile::jsonb, m.message_id, m.type, m.text, m.content::jsonb, m.context::jsonb,
                  m.referral::jsonb, m.raw::jsonb, m.opens_window, m.received_at, $1
             FROM unnest($2::uuid[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[],
                         $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
                         $14::text[], $15::text[], $16::boolean[], $17::timestamptz[])
                  WITH ORDINALITY AS m(id, organization_id, channel_kind, channel_id, sender,
                                       sender_user_id, profile, message_id, type, text, content,
                                       context, referral, raw, opens_window, received_at, position)
            ORDER BY m.position
           ON CONFLICT (channel_id, message_id) DO NOTHING RETURNING id`,
          [
            toIso(now),
            entities.map((e) => e.id),
            entities.map((e) => e.organizationId),
            entities.map((e) => e.channelKind),
            entities.map((e) => e.channelId),
            entities.map((e) => e.sender),
            entities.map((e) => e.senderUserId),
            entities.map((e) => json(e.profile)),
            entities.map((e) => e.messageId),
            entities.map((e) => e.type),
            entities.map((e) => e.text),
            entities.map((e) => json(e.content)),
            entities.map((e) => json(e.context)),
            entities.map((e) => json(e.referral)),
            entities.map((e) => json(e.raw)),
            entities.map((e) => e.opensWindow),
            received.map(({ message }) => toIso(message.at)),
          ],
        ),
      ).map((row) => row.id),
    );
    const events: AgentEvent[] = [];
    for (const [index, { channel, message }] of received.entries()) {
      const entity = entities[index];
      if (!inserted.has(entity.id)) continue; // a resend
      await this.learnIdentity(db, channel, message);
      await this.applyKeywords(db, channel, message);
      events.push({
        type: 'message.received',
        organizationId: channel.organizationId,
        agentId: channel.agentId,
        channelId: channel.id,
        data: {
          ...toChannelMessageResponse(
            entity,
            mediaUrl(
              this.appConfig.publicUrl,
              channel,
              this.kinds.get(channel.kind).downloadsMedia,
            ),
          ),
        },
      });
    }
    await this.events.enqueueAll(db, events);
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
