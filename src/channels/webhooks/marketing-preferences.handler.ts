import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { toIso } from '../../common/time';
import { ChannelIdentities } from '../conversations/channel-identities';
import type { InboundPreference } from './inbound-notification';
import type { WebhookChannel } from './webhook-channels';

/**
 * Meta's word that a person stopped (or resumed) marketing messages from the business: a
 * `user_preferences` notification, or a message that failed with 131050. Kept in
 * channel_marketing_opt_outs (`source: meta`), which blocks MARKETING templates only.
 */
@Injectable()
export class MarketingPreferencesHandler {
  constructor(private readonly identities: ChannelIdentities) {}

  apply(db: EntityManager, channel: WebhookChannel, preference: InboundPreference): Promise<void> {
    return preference.value === 'stop'
      ? this.stop(db, channel, preference.recipient, preference.at)
      : this.resume(db, channel, preference.recipient, preference.at);
  }

  /** Opted out of marketing since `at` (the latest of Meta's words when told twice). */
  async stop(
    db: EntityManager,
    channel: WebhookChannel,
    recipient: string,
    at: number,
  ): Promise<void> {
    await db.query(
      `INSERT INTO channel_marketing_opt_outs AS o (channel_id, recipient, organization_id, source,
                                                   opted_out_at)
       VALUES ($1, $2, $3, 'meta', $4)
       ON CONFLICT (channel_id, recipient) DO UPDATE
          SET opted_out_at = GREATEST(o.opted_out_at, excluded.opted_out_at)`,
      [channel.id, recipient, channel.organizationId, toIso(at)],
    );
  }

  /**
   * Every form of the person opted back in, unless Meta's stop is newer than this resume (the two
   * notifications may arrive out of order).
   */
  private async resume(
    db: EntityManager,
    channel: WebhookChannel,
    recipient: string,
    at: number,
  ): Promise<void> {
    const forms = await this.identities.formsOfOne(db, {
      channelId: channel.id,
      kind: channel.kind,
      recipient,
    });
    await db.query(
      `DELETE FROM channel_marketing_opt_outs
        WHERE channel_id = $1 AND recipient = ANY($2::text[]) AND opted_out_at <= $3`,
      [channel.id, forms, toIso(at)],
    );
  }
}
