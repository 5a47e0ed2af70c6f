import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { AgentEventsOutbox } from '../../../../agent-events';
import { Clock } from '../../../../common/clock';
import { PeriodicTask } from '../../../../common/periodic-task';
import { toIso } from '../../../../common/time';
import { AppConfig } from '../../../../config/app-config';
import { APP_CONFIG } from '../../../../config/config.module';
import { DatabaseAvailability } from '../../../../database/database-availability';
import { returnedRows } from '../../../../database/sql';
import { ChannelMessageSender } from '../../../channel-message-sender';
import { ChannelStore } from '../../../channel-store';
import { ChannelsService, ChannelUpdate } from '../../../channels.service';
import type { Principal } from '../../../../common/auth/principal';
import { webhookUrl } from '../../../channel.mappers';
import { CHANNELS_CONFIG, ChannelsConfig } from '../../../channels.config';
import type { StoredChannel } from '../../channel-kind';
import { toWhatsappChannelResponse } from '../whatsapp.kind';
import {
  isListingFailure,
  ListedTemplate,
  MAX_TEMPLATE_PAGES,
  WhatsappTemplatesClient,
} from './whatsapp-templates.client';

/** Channels claimed per statement of a sweep. */
const CLAIM_BATCH = 20;

/**
 * A claimed channel: which one, the account and token the sync was asked with, and the lease this
 * claim set (given back only while it is still that one).
 */
interface ClaimedSync {
  id: string;
  organization_id: string;
  business_account_id: string;
  access_token_encrypted: string;
  lease_until: string;
}

/**
 * Keeps each WhatsApp channel's template catalog (whatsapp_templates) as Graph lists it.
 *
 * A sync is asked for in the database (`templates_sync_requested_at`: on create or modify, on
 * demand, by a template webhook) or falls due (TEMPLATE_SYNC_MS after the last one); every replica
 * sweeps for such channels, and a conditional UPDATE gives each to one replica at a time
 * (`templates_sync_lease_until`, longer than the longest listing: a crashed replica's lease runs
 * out). A sync that fails keeps the catalog as it was and is recorded on the channel.
 */
@Injectable()
export class WhatsappTemplateSync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WhatsappTemplateSync.name);
  private readonly client: WhatsappTemplatesClient;
  private readonly task: PeriodicTask;
  /** Longer than a whole listing can take (every page at the Graph time-out), plus a margin. */
  private readonly leaseMs: number;
  /** A request came in during a sweep: sweep once more. */
  private sweepAgain = false;
  /** Transactions that asked for a sync: the sweep is woken once each commits. */
  private readonly wakeOnCommit = new WeakSet<QueryRunner>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
    private readonly sender: ChannelMessageSender,
    private readonly store: ChannelStore,
    private readonly channels: ChannelsService,
    private readonly events: AgentEventsOutbox,
    private readonly clock: Clock,
    private readonly availability: DatabaseAvailability,
  ) {
    this.client = new WhatsappTemplatesClient(config.graphApiUrl, config.sendTimeoutMs);
    this.leaseMs = MAX_TEMPLATE_PAGES * config.sendTimeoutMs + 60_000;
    this.task = new PeriodicTask(
      () => this.sweep(),
      config.templateSyncMs > 0 ? config.templateSyncMs : 60_000,
      (error) => {
        if (!this.availability.reportFailure(error)) {
          this.logger.warn(
            { err: error },
            'template catalogs could not be synced; trying again later',
          );
        }
      },
    );
    const subscriber: EntitySubscriberInterface = {
      afterTransactionCommit: ({ queryRunner }) => {
        if (!this.wakeOnCommit.has(queryRunner)) return;
        this.wakeOnCommit.delete(queryRunner);
        this.wake();
      },
    };
    dataSource.subscribers.push(subscriber);
  }

  onApplicationBootstrap(): void {
    // The periodic sync is on unless TEMPLATE_SYNC_MS=0; asked-for syncs run either way (wake).
    if (this.config.templateSyncMs > 0) this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
    await this.client.close();
  }

  /**
   * What a new channel stores of its catalog: its account, and a sync asked for when it has one.
   * The sync itself runs after the answer (`wake`): Graph's listing takes a page per hundred
   * templates, and a create must not wait on it nor fail with it.
   */
  ownColumnsOnCreate(businessAccountId: string | undefined): Record<string, unknown> {
    return businessAccountId === undefined
      ? {}
      : {
          business_account_id: businessAccountId,
          templates_sync_requested_at: new Date(this.clock.now()),
        };
  }

  /**
   * What a modify changes of the catalog: a new account forgets the old one's catalog (its
   * templates are another account's) and asks for a sync; `null` unbinds it; a new token alone
   * asks for a sync of the same account.
   */
  private ownColumnsOnUpdate(
    channel: StoredChannel,
    businessAccountId: string | null | undefined,
    tokenChanged: boolean,
  ): Record<string, unknown> | undefined {
    const current = channel.own.business_account_id ?? null;
    const now = new Date(this.clock.now());
    if (businessAccountId !== undefined && businessAccountId !== current) {
      return {
        business_account_id: businessAccountId,
        templates_synced_at: null,
        templates_sync_error: null,
        templates_sync_failed_at: null,
        templates_sync_requested_at: businessAccountId === null ? null : now,
      };
    }
    return tokenChanged && current !== null ? { templates_sync_requested_at: now } : undefined;
  }

  /**
   * A WhatsApp channel's modify (PUT): the generic update with the catalog's columns; the old
   * account's templates go when it changed, and an asked-for sync runs after the answer.
   */
  async modifyChannel(
    principal: Principal,
    id: string,
    update: ChannelUpdate & { businessAccountId?: string | null },
  ): Promise<StoredChannel> {
    const { businessAccountId, ...common } = update;
    const current = await this.channels.get('whatsapp', principal, id);
    const own = this.ownColumnsOnUpdate(
      current,
      businessAccountId,
      common.accessToken !== undefined,
    );
    const channel = await this.channels.update('whatsapp', principal, id, { ...common, own });
    if (own && 'business_account_id' in own) {
      await this.forgetCatalog(channel.id, channel.organizationId);
    }
    if (own?.templates_sync_requested_at) this.wake();
    return channel;
  }

  /** After a modify that changed the account: the old account's templates go. */
  private async forgetCatalog(channelId: string, organizationId: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM whatsapp_templates t
        WHERE t.channel_id = $1 AND t.organization_id = $2
          AND NOT EXISTS (SELECT 1 FROM whatsapp_channels c
                           WHERE c.id = t.channel_id AND c.templates_synced_at IS NOT NULL)`,
      [channelId, organizationId],
    );
  }

  /** A sync of this organization's channel (POST .../templates/sync); false when it has no account. */
  async request(organizationId: string, channelId: string): Promise<boolean> {
    const asked = returnedRows<{ id: string }>(
      await this.dataSource.query(
        `UPDATE whatsapp_channels SET templates_sync_requested_at = $3
          WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
            AND business_account_id IS NOT NULL
        RETURNING id`,
        [channelId, organizationId, toIso(this.clock.now())],
      ),
    );
    if (asked.length > 0) this.wake();
    return asked.length > 0;
  }

  /**
   * In a webhook's transaction: these channels' catalogs are synced once it commits (a template's
   * status, quality or category changed at Meta).
   */
  async requestIn(db: EntityManager, channelIds: readonly string[]): Promise<void> {
    if (channelIds.length === 0) return;
    await db.query(
      `UPDATE whatsapp_channels SET templates_sync_requested_at = $2
        WHERE id IN (SELECT unnest($1::uuid[])) AND deleted_at IS NULL
          AND business_account_id IS NOT NULL`,
      [channelIds, toIso(this.clock.now())],
    );
    if (db.queryRunner?.isTransactionActive) this.wakeOnCommit.add(db.queryRunner);
    else this.wake();
  }

  /** Sweeps now (or once more after the sweep under way) for the syncs asked for or due. */
  wake(): void {
    this.sweepAgain = true;
    void this.task.runNow();
  }

  /** Runs every sync asked for or due, a batch of channels at a time; resolves when none is left. */
  async sweep(): Promise<void> {
    do {
      this.sweepAgain = false;
      let claimed: ClaimedSync[];
      do {
        claimed = await this.claim(CLAIM_BATCH);
        for (const sync of claimed) await this.syncOne(sync);
      } while (claimed.length === CLAIM_BATCH);
    } while (this.sweepAgain);
  }

  /**
   * Takes the lease of channels whose sync is asked for or due, and not leased by a live sync:
   * rows another replica is claiming are skipped (SKIP LOCKED), so no two replicas take one
   * channel; a channel whose lease is held is taken again only once it has run out.
   */
  async claim(limit: number): Promise<ClaimedSync[]> {
    const now = this.clock.now();
    const interval = this.config.templateSyncMs;
    const leaseUntil = toIso(now + this.leaseMs);
    const claimed = returnedRows<Omit<ClaimedSync, 'lease_until'>>(
      await this.dataSource.query(
        `UPDATE whatsapp_channels c
            SET templates_sync_lease_until = $2, templates_sync_requested_at = NULL
          WHERE c.id IN (
                SELECT id FROM whatsapp_channels
                 WHERE business_account_id IS NOT NULL AND deleted_at IS NULL
                   AND (templates_sync_lease_until IS NULL OR templates_sync_lease_until <= $1)
                   AND (templates_sync_requested_at IS NOT NULL
                        OR ($3::bigint > 0 AND status = 'active'
                            AND COALESCE(GREATEST(templates_synced_at, templates_sync_failed_at),
                                         '-infinity') <= $4))
                 ORDER BY templates_sync_requested_at NULLS LAST, id
                 LIMIT $5
                   FOR UPDATE SKIP LOCKED)
            AND (c.templates_sync_lease_until IS NULL OR c.templates_sync_lease_until <= $1)
        RETURNING c.id, c.organization_id, c.business_account_id, c.access_token_encrypted`,
        [toIso(now), leaseUntil, interval, toIso(now - interval), limit],
      ),
    );
    return claimed.map((row) => ({ ...row, lease_until: leaseUntil }));
  }

  /** One claimed channel's sync, its lease given back whatever happens. */
  private async syncOne(sync: ClaimedSync): Promise<void> {
    try {
      const credentials = await this.sender.credentials(
        { organizationId: sync.organization_id, channelId: sync.id },
        { kind: 'whatsapp' },
      );
      // Removed, inactive (a new token asks again) or unreadable: nothing to list with.
      if ('reason' in credentials) return;
      const listing = await this.client.list(sync.business_account_id, credentials.accessToken);
      if (isListingFailure(listing)) {
        if (listing.tokenRejected) await credentials.tokenRejected(listing.tokenRejected);
        await this.recordFailure(sync, listing.failure);
        return;
      }
      await this.replaceCatalog(sync, listing);
    } catch (error) {
      if (this.availability.reportFailure(error)) return;
      await this.recordFailure(sync, 'the catalog could not be stored').catch(() => undefined);
      this.logger.warn(
        { err: error, channelId: sync.id },
        'a template catalog could not be stored',
      );
    } finally {
      await this.release(sync).catch(() => undefined);
    }
  }

  /**
   * The channel's rows become the listing, in one transaction, only while the channel still has
   * the account and token the listing was made with (a modify meanwhile asked for another sync).
   */
  private async replaceCatalog(sync: ClaimedSync, listing: ListedTemplate[]): Promise<void> {
    const now = toIso(this.clock.now());
    // Meta lists one row per (name, language); should it repeat one, the last wins.
    const unique = new Map(listing.map((t) => [`${t.name}\n${t.language}`, t]));
    await this.dataSource.transaction(async (db) => {
      const current = returnedRows<{ id: string }>(
        await db.query(
          `UPDATE whatsapp_channels
              SET templates_synced_at = $4, templates_sync_error = NULL,
                  templates_sync_failed_at = NULL
            WHERE id = $1 AND business_account_id = $2 AND access_token_encrypted = $3
              AND deleted_at IS NULL
        RETURNING id`,
          [sync.id, sync.business_account_id, sync.access_token_encrypted, now],
        ),
      );
      if (current.length === 0) return;
      await db.query('DELETE FROM whatsapp_templates WHERE channel_id = $1', [sync.id]);
      if (unique.size === 0) return;
      await db.query(
        `INSERT INTO whatsapp_templates (channel_id, name, language, organization_id, template_id,
                                         status, category, parameter_format, components, updated_at)
         SELECT $1, t->>'name', t->>'language', $2, t->>'templateId', t->>'status',
                t->>'category', t->>'parameterFormat', t->'components', $3
           FROM jsonb_array_elements($4::jsonb) AS t`,
        [sync.id, sync.organization_id, now, JSON.stringify([...unique.values()])],
      );
    });
  }

  /**
   * The failure on the channel; the catalog stays. Logged and told to the agent when it is new
   * (another error than the last one recorded), so that a lasting failure is not repeated every
   * TEMPLATE_SYNC_MS.
   */
  private async recordFailure(sync: ClaimedSync, failure: string): Promise<void> {
    const now = this.clock.now();
    await this.dataSource.transaction(async (db) => {
      const [row] = returnedRows<{ previous: string | null }>(
        await db.query(
          `UPDATE whatsapp_channels c
              SET templates_sync_error = $3, templates_sync_failed_at = $4
             FROM (SELECT templates_sync_error AS previous FROM whatsapp_channels WHERE id = $1) p
            WHERE c.id = $1 AND c.business_account_id = $2 AND c.deleted_at IS NULL
        RETURNING p.previous`,
          [sync.id, sync.business_account_id, failure, toIso(now)],
        ),
      );
      if (!row || row.previous === failure) return;
      this.logger.warn(
        { channelId: sync.id, businessAccountId: sync.business_account_id, reason: failure },
        'the template catalog could not be synced; the last one is kept',
      );
      const channel = await this.store.findOne('whatsapp', sync.organization_id, sync.id, db);
      if (!channel || !this.events.enabled) return;
      await this.events.enqueue(db, {
        type: 'channel.templates_sync_failed',
        organizationId: channel.organizationId,
        agentId: channel.agentId,
        channelId: channel.id,
        data: {
          ...toWhatsappChannelResponse(channel, webhookUrl(this.appConfig.publicUrl, channel)),
        },
      });
    });
  }

  /**
   * Gives the lease back, when it is still the one this claim set: a sync that ran past its lease
   * leaves alone the lease another replica has taken since. A sync asked for while this one ran
   * (perhaps on another replica, whose sweep found the lease held) runs next, in this sweep.
   */
  private async release(sync: ClaimedSync): Promise<void> {
    const [row] = returnedRows<{ asked: boolean }>(
      await this.dataSource.query(
        `UPDATE whatsapp_channels SET templates_sync_lease_until = NULL
          WHERE id = $1 AND templates_sync_lease_until = $2
         RETURNING templates_sync_requested_at IS NOT NULL AS asked`,
        [sync.id, sync.lease_until],
      ),
    );
    if (row?.asked) this.sweepAgain = true;
  }
}
