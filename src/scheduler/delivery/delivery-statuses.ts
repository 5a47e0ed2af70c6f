import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import {
  ChannelConversations,
  ChannelRemoval,
  ChannelsService,
  ChannelStatusUpdate,
  watermarkLockKey,
} from '../../channels';
import type { ChannelKind } from '../../channels';
import { toIso } from '../../common/time';
import { returnedRows } from '../../database/sql';
import { DeliveryEvents } from './delivery-events';

/** A delivery whose send's outcome (sent, with the provider's message id) is being written. */
export interface SentMessage {
  organizationId: string;
  channelId: string;
  kind: ChannelKind;
  providerMessageId: string;
  /** Its `phone`: the recipient as the channel names them (E.164, a PSID). */
  recipient: string;
  /** Its `sent_at` (ms). */
  sentAt: number;
}

/** Which deliveries a status is about, as SQL on `deliveries d` ($1 channel, $2 organization). */
function matching(update: ChannelStatusUpdate): { where: string; parameters: unknown[] } {
  return 'ids' in update.messages
    ? {
        where: 'd.wa_message_id IN (SELECT unnest($3::text[]))',
        parameters: [update.messages.ids],
      }
    : {
        // Every message to that recipient sent up to then (a Messenger read or delivery).
        where: 'd.phone = $3 AND d.sent_at <= $4',
        parameters: [update.messages.recipient, toIso(update.messages.sentUpTo)],
      };
}

/**
 * What Meta says of sent messages, applied to deliveries (forward only: sent < delivered < read;
 * `failed` only before delivered), and what a channel's removal means for them. Both run in the
 * transaction of their cause (the webhook's processing, the removal), and tell the agent.
 */
@Injectable()
export class DeliveryStatuses implements OnModuleInit {
  constructor(
    private readonly conversations: ChannelConversations,
    private readonly channels: ChannelsService,
    private readonly events: DeliveryEvents,
  ) {}

  onModuleInit(): void {
    this.conversations.onStatus((db, update) => this.apply(db, update));
    this.channels.onRemoved((db, removal) => this.channelRemoved(db, removal));
  }

  async apply(db: EntityManager, update: ChannelStatusUpdate): Promise<void> {
    const { where, parameters } = matching(update);
    const at = toIso(update.at);
    if (update.pricing) {
      // Any status may carry it; the last one that did is what the delivery shows.
      await db.query(
        `UPDATE deliveries d SET pricing = $${3 + parameters.length}::jsonb
          WHERE d.channel_id = $1 AND d.organization_id = $2 AND ${where}`,
        [update.channelId, update.organizationId, ...parameters, JSON.stringify(update.pricing)],
      );
    }
    const next = 3 + parameters.length;
    let sql: string;
    let values: unknown[];
    switch (update.status) {
      case 'sent':
        return; // the send's own answer already said so
      case 'delivered':
        sql = `UPDATE deliveries d
                  SET delivered_at = COALESCE(d.delivered_at, $${next}),
                      status = CASE WHEN d.status = 'sent' THEN 'delivered' ELSE d.status END,
                      updated_at = $${next}
                WHERE d.channel_id = $1 AND d.organization_id = $2 AND ${where}
                  AND d.status IN ('sent', 'delivered', 'read') AND d.delivered_at IS NULL
            RETURNING d.id`;
        values = [at];
        break;
      case 'read':
        // Read implies delivered: a read that arrives first sets both.
        sql = `UPDATE deliveries d
                  SET read_at = $${next}, delivered_at = COALESCE(d.delivered_at, $${next}),
                      status = 'read', updated_at = $${next}
                WHERE d.channel_id = $1 AND d.organization_id = $2 AND ${where}
                  AND d.status IN ('sent', 'delivered') AND d.read_at IS NULL
            RETURNING d.id`;
        values = [at];
        break;
      case 'failed': {
        const code = update.error?.code ?? 'unknown';
        // Text refused outside the messaging window (the channel kind says which error means
        // that) goes once more as the template when there is one; else it fails for good.
        // The delivery's own template (a send now) or its follow-up's, if still there.
        const hasTemplate = `(d.template IS NOT NULL OR EXISTS (SELECT 1 FROM follow_ups f
                               WHERE f.id = d.follow_up_id AND f.template IS NOT NULL
                                 AND f.deleted_at IS NULL))`;
        // Only text that was refused, once: a template refused so (sent as such, or already the
        // resend) fails for good, as the send's own answer does.
        const resend = `($${next + 2} AND d.message_type = 'text' AND NOT d.template_required
                         AND ${hasTemplate})`;
        sql = `UPDATE deliveries d
                  SET status = CASE WHEN ${resend} THEN 'pending' ELSE 'failed' END,
                      template_required = d.template_required OR ${resend},
                      message_type = CASE WHEN ${resend} THEN 'template' ELSE d.message_type END,
                      next_attempt_at = $${next + 3},
                      last_error_code = $${next}, last_error_message = $${next + 1},
                      updated_at = $${next + 3}
                WHERE d.channel_id = $1 AND d.organization_id = $2 AND ${where}
                  AND d.status = 'sent'
            RETURNING d.id`;
        values = [
          code,
          update.error?.title ?? 'Meta reported the message as failed.',
          update.error?.resendAsTemplate ?? false,
          at,
        ];
        break;
      }
    }
    const changed = returnedRows<{ id: string }>(
      await db.query(sql, [update.channelId, update.organizationId, ...parameters, ...values]),
    );
    await this.events.tell(
      db,
      changed.map((row) => row.id),
    );
  }

  /**
   * In the transaction that writes these sends' outcomes: see ChannelConversations.lockMessages.
   * Each message's id, and its recipient's statuses by watermark (Messenger's delivery and read).
   */
  async lockSent(db: EntityManager, sent: readonly SentMessage[]): Promise<void> {
    await this.conversations.lockMessages(
      db,
      sent.flatMap((s) => [
        { channelId: s.channelId, messageId: s.providerMessageId },
        { channelId: s.channelId, messageId: watermarkLockKey(s.recipient) },
      ]),
    );
  }

  /**
   * Statuses that overtook their send: Meta may report `delivered`, `read` or `failed` before the
   * send's own answer is written. Applied once the outcomes are written (in their transaction when agent
   * events are on).
   */
  async catchUp(db: EntityManager, sent: readonly SentMessage[]): Promise<void> {
    if (sent.length === 0) return;
    const received = await this.conversations.receivedStatuses(
      db,
      sent.map((s) => ({ channelId: s.channelId, kind: s.kind, messageId: s.providerMessageId })),
    );
    const byMessage = received.flatMap((status) =>
      sent
        .filter((s) => s.channelId === status.channelId && s.providerMessageId === status.messageId)
        .map((delivery) => ({ delivery, status })),
    );
    // A watermark covers every message to that person sent up to it.
    const watermarks = await this.conversations.receivedWatermarks(
      db,
      sent.map((s) => ({ channelId: s.channelId, recipient: s.recipient })),
    );
    const byWatermark = watermarks.flatMap((status) =>
      sent
        .filter(
          (s) =>
            s.channelId === status.channelId &&
            s.recipient === status.recipient &&
            s.sentAt <= status.watermark,
        )
        .map((delivery) => ({ delivery, status })),
    );
    for (const { delivery, status } of [...byMessage, ...byWatermark]) {
      await this.apply(db, {
        organizationId: delivery.organizationId,
        agentId: '', // not read by apply: DeliveryEvents finds each delivery's agent
        channelId: delivery.channelId,
        kind: delivery.kind,
        status: status.status,
        at: status.at,
        messages: { ids: [delivery.providerMessageId] },
        ...('error' in status && status.error && { error: status.error }),
        ...('pricing' in status && status.pricing && { pricing: status.pricing }),
      });
    }
  }

  /**
   * Its follow-ups stop for good (completed), then its pending deliveries are cancelled: in that
   * order, so that a dispatch holding a follow-up's lock finishes first and its new deliveries
   * are cancelled too.
   */
  private async channelRemoved(db: EntityManager, removal: ChannelRemoval): Promise<void> {
    const at = toIso(removal.at);
    // Whatever the kind: one without follow-ups matches none.
    await db.query(
      `UPDATE follow_ups SET status = 'completed', next_run_at = NULL, updated_at = $3
        WHERE channel_id = $1 AND organization_id = $2
          AND status IN ('active', 'paused') AND deleted_at IS NULL`,
      [removal.channelId, removal.organizationId, at],
    );
    await db.query(
      `UPDATE deliveries SET status = 'cancelled', updated_at = $3
        WHERE channel_id = $1 AND organization_id = $2 AND status = 'pending'`,
      [removal.channelId, removal.organizationId, at],
    );
    // Claimed ones: the check right before each call (startCall) refuses them; a call already
    // made is recorded as usual.
    await db.query(
      `UPDATE deliveries SET cancel_requested = true, updated_at = $3
        WHERE channel_id = $1 AND organization_id = $2 AND status = 'sending'`,
      [removal.channelId, removal.organizationId, at],
    );
  }
}
