import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';
import { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { notFound, validationFailed } from '../../common/http/problem';
import { PaginationQueryDto } from '../../common/http/pagination.dto';
import { findPage, Page } from '../../database/find-page';
import { describePhoneProblem, toE164 } from '../../common/phone-number';
import { toIso } from '../../common/time';
import { ChannelStore } from '../channel-store';
import type { ChannelKind } from '../channel-transport';
import { ChannelKinds } from '../kinds/channel-kinds';
import { isBusinessScopedUserId } from '../kinds/whatsapp/whatsapp-number-forms';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ChannelIdentities } from './channel-identities';
import { ChannelMessageEntity, ChannelOptOutEntity } from './conversation.entities';
import { ListedOptOut, mediaUrl, MediaUrl } from './conversation.mappers';
import { DEFAULT_PAGE_SIZE } from '../../common/http/pagination.dto';
import { ListChannelMessagesQueryDto } from './conversation.dto';

export type { Page } from '../../database/find-page';

/** Reading conversations (inbound messages) and managing opt-outs, in the caller's organization. */
@Injectable()
export class ConversationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(ChannelOptOutEntity)
    private readonly optOuts: Repository<ChannelOptOutEntity>,
    private readonly clock: Clock,
    private readonly store: ChannelStore,
    private readonly kinds: ChannelKinds,
    private readonly identities: ChannelIdentities,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async listMessages(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    query: ListChannelMessagesQueryDto,
  ): Promise<Page<ChannelMessageEntity>> {
    await this.assertChannel(principal, kind, channelId);
    const scope = { organizationId: principal.organizationId, channelId };
    // `from` is a phone, a PSID, or a WhatsApp user's business-scoped id.
    const where =
      query.from === undefined
        ? scope
        : [
            { ...scope, sender: this.senderFilter(kind, query.from) },
            { ...scope, senderUserId: query.from },
          ];
    const order = { receivedAt: 'DESC', id: 'DESC' } as const;
    return findPage(this.dataSource.manager, ChannelMessageEntity, { where, order }, query);
  }

  /** A document's name, from the inbound message that carried the media id; null if none did. */
  async mediaFilename(
    organizationId: string,
    channelId: string,
    mediaId: string,
  ): Promise<string | null> {
    const [row] = (await this.dataSource.query(
      `SELECT content->>'filename' AS filename FROM channel_messages
        WHERE channel_id = $1 AND organization_id = $2 AND content->>'media_id' = $3
          AND content->>'filename' IS NOT NULL
        LIMIT 1`,
      [channelId, organizationId, mediaId],
    )) as { filename: string }[];
    return row?.filename ?? null;
  }

  /** Whether a client's message with this Meta id reached this channel of the organization. */
  async hasInboundMessage(
    organizationId: string,
    channelId: string,
    messageId: string,
  ): Promise<boolean> {
    return this.dataSource.manager.exists(ChannelMessageEntity, {
      where: { organizationId, channelId, messageId },
    });
  }

  /** Where the channel's media are downloaded, for kinds that serve them (a content's `url`). */
  mediaUrl(kind: ChannelKind, channelId: string): MediaUrl {
    return mediaUrl(
      this.config.publicUrl,
      { kind, id: channelId },
      this.kinds.get(kind).downloadsMedia,
    );
  }

  /**
   * The channel's own opt-outs (scope `all`) and Meta's marketing stops (scope `marketing`,
   * source `meta`), newest first, one list.
   */
  async listOptOuts(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    query: PaginationQueryDto,
  ): Promise<Page<ListedOptOut>> {
    await this.assertChannel(principal, kind, channelId);
    const offset = query.offset ?? 0;
    const both = `SELECT recipient, opted_out_at, source, 'all' AS scope FROM channel_opt_outs
                   WHERE channel_id = $1 AND organization_id = $2
                  UNION ALL
                  SELECT recipient, opted_out_at, source, 'marketing' AS scope
                    FROM channel_marketing_opt_outs
                   WHERE channel_id = $1 AND organization_id = $2`;
    const parameters = [channelId, principal.organizationId];
    // The page and the total in one statement, so that both come from one snapshot (two queries
    // could see a row arrive between them: a count of 1 beside no item).
    const rows = (await this.dataSource.query(
      `SELECT o.*, count(*) OVER () AS total FROM (${both}) o
        ORDER BY opted_out_at DESC, recipient, scope OFFSET $3 LIMIT $4`,
      [...parameters, offset, query.limit ?? DEFAULT_PAGE_SIZE],
    )) as {
      recipient: string;
      opted_out_at: Date | string;
      source: string;
      scope: 'all' | 'marketing';
      total: string | number;
    }[];
    // A page past the end has no row to carry the total: it is counted on its own.
    let total = rows.length > 0 ? Number(rows[0].total) : 0;
    if (rows.length === 0 && offset > 0) {
      const [count] = (await this.dataSource.query(
        `SELECT count(*) AS total FROM (${both}) o`,
        parameters,
      )) as { total: string | number }[];
      total = Number(count.total);
    }
    return {
      items: rows.map((row) => ({
        recipient: row.recipient,
        optedOutAt: new Date(row.opted_out_at),
        source: row.source,
        scope: row.scope,
      })),
      offset,
      total_count: total,
    };
  }

  /** Idempotent: a number already opted out keeps its first time and source. */
  async optOut(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    rawPhone: string,
  ): Promise<void> {
    await this.assertChannel(principal, kind, channelId);
    const phone = this.phone(rawPhone);
    await this.dataSource.query(
      `INSERT INTO channel_opt_outs (channel_id, recipient, organization_id, source, opted_out_at)
       VALUES ($1, $2, $3, 'api', $4) ON CONFLICT (channel_id, recipient) DO NOTHING`,
      [channelId, phone, principal.organizationId, toIso(this.clock.now())],
    );
  }

  /** The person opts back in, whichever of their forms (another number form, a BSUID) opted out. */
  async optIn(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    rawPhone: string,
  ): Promise<void> {
    await this.assertChannel(principal, kind, channelId);
    const forms = await this.identities.formsOfOne(this.dataSource.manager, {
      channelId,
      kind,
      recipient: this.phone(rawPhone),
    });
    await this.optOuts.delete({
      organizationId: principal.organizationId,
      channelId,
      recipient: In(forms),
    });
  }

  /** A phone number, normalised; or a BSUID (a user Meta names only so), as given. */
  private phone(raw: string): string {
    if (isBusinessScopedUserId(raw)) return raw;
    const result = toE164(raw);
    if ('problem' in result) {
      throw validationFailed([
        { field: 'phone', message: describePhoneProblem(raw, result.problem) },
      ]);
    }
    return result.number;
  }

  /** A phone `from` filter is normalised like the stored senders; a PSID is taken as given. */
  private senderFilter(kind: ChannelKind, from: string): string {
    if (this.kinds.get(kind).recipients !== 'phone') return from;
    const result = toE164(from);
    return 'number' in result ? result.number : from;
  }

  private async assertChannel(principal: Principal, kind: ChannelKind, id: string): Promise<void> {
    const channel = await this.store.findOne(kind, principal.organizationId, id);
    if (!channel) throw notFound(`${this.kinds.get(kind).label} channel`);
  }
}
