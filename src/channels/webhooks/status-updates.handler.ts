import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { toIso } from '../../common/time';
import { returnedRows } from '../../database/sql';
import { ChannelConversations, watermarkLockKey } from '../conversations/channel-conversations';
import { IdentityChangesHandler } from './identity-changes.handler';
import { MarketingPreferencesHandler } from './marketing-preferences.handler';
import type { InboundStatus, ReadItem } from './inbound-notification';
import type { Routes, WebhookChannel } from './webhook-channels';

/**
 * The statuses of sent messages from a notification: each (message, status) handed once to the
 * modules that sent those messages, its messages locked against the send's own outcome.
 */
@Injectable()
export class StatusUpdatesHandler {
  constructor(
    private readonly conversations: ChannelConversations,
    private readonly identityChanges: IdentityChangesHandler,
    private readonly marketingPreferences: MarketingPreferencesHandler,
  ) {}

  /**
   * Every message a status of these notifications is about, locked at once and in one order
   * before any item applies (see ChannelConversations.lockMessages): locked status by status, a
   * notification with statuses for m2 then m1 waited in a cycle with a send's outcome locking m1
   * and m2. A batch of notifications locks all its messages together, for the same reason.
   */
  async lockStatusedMessages(
    db: EntityManager,
    notifications: readonly { items: readonly ReadItem[]; routes: Routes }[],
  ): Promise<void> {
    const messages: { channelId: string; messageId: string }[] = [];
    for (const { items, routes } of notifications) {
      for (const { event } of items) {
        if (event.kind !== 'status') continue;
        const target = await routes(event.account);
        if (typeof target === 'string') continue;
        const ids =
          'ids' in event.messages
            ? event.messages.ids
            : [watermarkLockKey(event.messages.recipient)];
        for (const messageId of ids) messages.push({ channelId: target.id, messageId });
      }
    }
    await this.conversations.lockMessages(db, messages);
  }

  /** Handed to the modules that sent those messages, once per (message, status). */
  async updateStatus(
    db: EntityManager,
    channel: WebhookChannel,
    status: InboundStatus,
  ): Promise<void> {
    const keys =
      'ids' in status.messages
        ? status.messages.ids
        : [`watermark:${status.messages.recipient}:${status.messages.watermark}`];
    // Its messages were locked with the notification's others (lockStatusedMessages).
    const fresh = returnedRows<{ message_id: string }>(
      await db.query(
        `INSERT INTO channel_message_statuses (channel_id, message_id, status, at, error_code, error_title,
                                               pricing)
         SELECT $1, key, $2, $3, $5, $6, $7::jsonb FROM unnest($4::text[]) AS key
         ON CONFLICT DO NOTHING RETURNING message_id`,
        [
          channel.id,
          status.status,
          toIso(status.at),
          keys,
          status.error?.code ?? null,
          status.error?.title ?? null,
          status.pricing ? JSON.stringify(status.pricing) : null,
        ],
      ),
    ).map((row) => row.message_id);
    if (fresh.length === 0) return; // a resend: its identity was learned the first time
    // A status that names the recipient by phone and BSUID links them.
    if (status.identity) await this.identityChanges.learn(db, channel, status.identity, status.at);
    if (status.stoppedMarketing) {
      await this.marketingPreferences.stop(db, channel, status.stoppedMarketing, status.at);
    }
    if ('watermark' in status.messages) {
      // Kept for a send whose outcome is written after it (DeliveryStatuses.catchUp).
      await db.query(
        `INSERT INTO channel_watermarks AS w (channel_id, recipient, status, watermark, at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (channel_id, recipient, status) DO UPDATE
            SET watermark = excluded.watermark, at = excluded.at
          WHERE w.watermark < excluded.watermark`,
        [
          channel.id,
          status.messages.recipient,
          status.status,
          toIso(status.messages.watermark),
          toIso(status.at),
        ],
      );
    }
    await this.conversations.publishStatus(db, {
      organizationId: channel.organizationId,
      agentId: channel.agentId,
      channelId: channel.id,
      kind: channel.kind,
      status: status.status,
      at: status.at,
      messages:
        'ids' in status.messages
          ? { ids: fresh }
          : { recipient: status.messages.recipient, sentUpTo: status.messages.watermark },
      error: status.error,
      pricing: status.pricing,
    });
  }
}
