import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ChannelIdentities } from '../conversations/channel-identities';
import type { IdentityLink, InboundIdentity } from './inbound-notification';
import type { WebhookChannel } from './webhook-channels';

/**
 * What Meta says about who a person is, from a message, a status or an identity notification:
 * the forms that name one person are linked (opt-outs and the 24-hour window then cover them all);
 * a number the person left passes its opt-out on, and nothing else.
 */
@Injectable()
export class IdentityChangesHandler {
  constructor(private readonly identities: ChannelIdentities) {}

  /** A `user_id_update` notification (WhatsApp), applied like the same news in a message. */
  apply(db: EntityManager, channel: WebhookChannel, event: InboundIdentity): Promise<void> {
    return this.learn(db, channel, event.link, event.at);
  }

  async learn(
    db: EntityManager,
    channel: WebhookChannel,
    link: IdentityLink,
    at: number,
  ): Promise<void> {
    await this.identities.link(db, {
      organizationId: channel.organizationId,
      channelId: channel.id,
      kind: channel.kind,
      forms: link.forms,
      source: link.source,
      at,
    });
    const current = link.forms.find((form) => form.length > 0);
    if (link.left === null || current === undefined) return;
    // The person who asked not to be written to on the old number has not changed their mind
    // by changing numbers; the old number is not linked, so a stranger who gets it later does
    // not speak for them (their START does not opt the person back in).
    const left = await this.identities.formsOfOne(db, {
      channelId: channel.id,
      kind: channel.kind,
      recipient: link.left,
    });
    await db.query(
      `INSERT INTO channel_opt_outs (channel_id, recipient, organization_id, source, opted_out_at)
       SELECT o.channel_id, $3, o.organization_id, o.source, o.opted_out_at
         FROM channel_opt_outs o
        WHERE o.channel_id = $1 AND o.recipient = ANY($2::text[])
        ORDER BY o.opted_out_at
        LIMIT 1
       ON CONFLICT (channel_id, recipient) DO NOTHING`,
      [channel.id, left, current],
    );
  }
}
