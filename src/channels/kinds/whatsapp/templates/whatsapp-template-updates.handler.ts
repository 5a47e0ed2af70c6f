import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../../../../common/clock';
import { toIso } from '../../../../common/time';
import { ChannelStore } from '../../../channel-store';
import type { InboundTemplateUpdate, ItemRefusal } from '../../../webhooks/inbound-notification';
import { WebhookChannel, WebhookChannels } from '../../../webhooks/webhook-channels';
import { WhatsappTemplateSync } from './whatsapp-template-sync';

/**
 * A template notification (status, quality or category) for a WhatsApp Business Account: applied
 * to the catalog of each of the organization's channels of that account that the same app secrets
 * verify, whose catalogs are then synced again (after the notification's transaction commits).
 */
@Injectable()
export class WhatsappTemplateUpdatesHandler {
  constructor(
    private readonly store: ChannelStore,
    private readonly channels: WebhookChannels,
    private readonly sync: WhatsappTemplateSync,
    private readonly clock: Clock,
  ) {}

  async apply(
    db: EntityManager,
    received: WebhookChannel,
    update: InboundTemplateUpdate,
  ): Promise<ItemRefusal | undefined> {
    const ids = (await db.query(
      `SELECT id FROM whatsapp_channels
        WHERE organization_id = $1 AND business_account_id = $2 AND deleted_at IS NULL`,
      [received.organizationId, update.businessAccountId],
    )) as { id: string }[];
    const targets: WebhookChannel[] = [];
    for (const { id } of ids) {
      const channel = await this.store.findForWebhook('whatsapp', id, db);
      if (channel && this.channels.sameSigners(received, channel)) targets.push(channel);
    }
    if (targets.length === 0) {
      return {
        reason: ids.length === 0 ? 'unknown_account' : 'other_app_secret',
        detail:
          ids.length === 0
            ? `for WhatsApp Business Account ${update.businessAccountId}, which no channel of this organization has as business_account_id`
            : `for WhatsApp Business Account ${update.businessAccountId}, whose channels are verified with another app secret`,
      };
    }
    const channelIds = targets.map((channel) => channel.id);
    // The channels' rows first, then their templates: the order a catalog sync locks them in
    // (replaceCatalog), so that the two never wait on each other (a deadlock).
    await this.sync.requestIn(db, channelIds);
    if (update.status !== undefined || update.category !== undefined) {
      await db.query(
        `UPDATE whatsapp_templates
            SET status = COALESCE($4, status), category = COALESCE($5, category), updated_at = $6
          WHERE channel_id IN (SELECT unnest($1::uuid[])) AND name = $2 AND language = $3`,
        [
          channelIds,
          update.name,
          update.language,
          update.status ?? null,
          update.category ?? null,
          toIso(this.clock.now()),
        ],
      );
    }
    return undefined;
  }
}
