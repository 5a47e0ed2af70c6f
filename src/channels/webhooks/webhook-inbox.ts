import { withLogContext } from '../../common/logging/log-context';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AgentEventsOutbox } from '../../agent-events/agent-events.outbox';
import { Clock } from '../../common/clock';
import { SecretBox } from '../../common/crypto/secret-box';
import { isUuid, uuidv7 } from '../../common/ids';
import { toIso } from '../../common/time';
import { returnedRows } from '../../database/sql';
import type { ChannelKind } from '../channel-transport';
import { CHANNELS_CONFIG, ChannelsConfig } from '../channels.config';
import { appSecretAad } from '../channels.service';
import { ChannelConversations } from '../conversations/channel-conversations';
import { ChannelMessageEntity } from '../conversations/conversation.entities';
import { toChannelMessageResponse } from '../conversations/conversation.mappers';
import {
  InboundMessage,
  InboundStatus,
  parseMessangerNotification,
  parseWhatsappNotification,
  ParsedNotification,
} from './meta-notification.parser';

/** A channel as its webhooks see it (public routes: looked up by id alone). */
export interface WebhookChannel {
  kind: ChannelKind;
  id: string;
  organizationId: string;
  agentId: string;
  /** The WhatsApp phone number id, or the Facebook Page id. */
  metaId: string;
  verificationToken: string;
  /** Its own Meta app secret, sealed; null when META_APP_SECRET's list verifies it. */
  appSecretEncrypted: string | null;
}

interface InboxRow {
  id: string;
  organization_id: string;
  channel_kind: ChannelKind;
  channel_id: string;
  /** bytea: a Buffer on pg, a Uint8Array on PGlite. */
  body: Uint8Array;
  attempts: number;
}

/** How often every replica looks for notifications nobody processed (a crash, an error). */
const SWEEP_INTERVAL_MS = 5_000;
/** A notification whose processing keeps failing is set aside (malformed) after this many tries. */
const MAX_PROCESSING_ATTEMPTS = 10;
const retryDelayMs = (attempts: number) => Math.min(60_000, 1_000 * 2 ** attempts);

const CHANNEL_COLUMNS: Record<ChannelKind, string> = {
  whatsapp: `SELECT id, organization_id, agent_id, number_id AS meta_id, verification_token,
                    app_secret_encrypted
               FROM whatsapp_channels`,
  messanger: `SELECT id, organization_id, agent_id, user_id AS meta_id, verification_token,
                     app_secret_encrypted
                FROM messanger_channels`,
};
const META_ID_COLUMN: Record<ChannelKind, string> = { whatsapp: 'number_id', messanger: 'user_id' };
const ACCOUNT_NAME: Record<ChannelKind, string> = {
  whatsapp: 'phone_number_id',
  messanger: 'page',
};

interface ChannelRow {
  id: string;
  organization_id: string;
  agent_id: string;
  meta_id: string;
  verification_token: string;
  app_secret_encrypted: string | null;
}

/** Where an event goes: a channel, or why none takes it. */
type Route = WebhookChannel | 'no_channel' | 'other_secret';

/** Strict: a body that is not UTF-8 is malformed, not silently repaired. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const toWebhookChannel = (kind: ChannelKind, row: ChannelRow): WebhookChannel => ({
  kind,
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  metaId: row.meta_id,
  verificationToken: row.verification_token,
  appSecretEncrypted: row.app_secret_encrypted,
});

/**
 * Meta's notifications: stored before they are answered (`store`), then processed from the table
 * (`drain`), right away and by a sweep on every replica, each row by one process (SKIP LOCKED).
 * Processing applies what a notification says once: a message id or a (message, status) pair
 * already seen changes nothing.
 */
@Injectable()
export class WebhookInbox implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookInbox.name);
  private draining?: Promise<void>;
  private drainAgain = false;
  private sweep?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly conversations: ChannelConversations,
    private readonly events: AgentEventsOutbox,
    @Inject(CHANNELS_CONFIG) private readonly config: ChannelsConfig,
    private readonly secrets: SecretBox,
  ) {}

  onApplicationBootstrap(): void {
    this.sweep = setInterval(() => void this.drain(), SWEEP_INTERVAL_MS);
    this.sweep.unref();
    void this.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweep);
    await this.draining;
  }

  async findChannel(
    kind: ChannelKind,
    id: string,
    db: EntityManager = this.dataSource.manager,
  ): Promise<WebhookChannel | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = (await db.query(`${CHANNEL_COLUMNS[kind]} WHERE id = $1 AND deleted_at IS NULL`, [
      id,
    ])) as ChannelRow[];
    return row ? toWebhookChannel(kind, row) : undefined;
  }

  /**
   * The app secrets that may sign a notification for this channel: its own alone when it has one
   * (issue 17: every META_APP_SECRET verified every organization's channels), else the global
   * list. Unknown channels get the global list, so that a caller learns nothing from the 401.
   * A secret no configured ENCRYPTION_KEY opens verifies nothing.
   */
  signingSecrets(channel: WebhookChannel | undefined): readonly string[] {
    if (!channel?.appSecretEncrypted) return this.config.metaAppSecrets;
    try {
      return [
        this.secrets.decrypt(
          channel.appSecretEncrypted,
          appSecretAad(`${channel.kind}_channels`, channel.id),
        ),
      ];
    } catch (error) {
      this.logger.warn(
        { err: error, channelId: channel.id },
        "a channel's app secret cannot be decrypted with the configured keys; its webhooks are refused",
      );
      return [];
    }
  }

  /**
   * The channel an event is for. One Meta app has one callback URL for all its numbers (or pages),
   * so an event for another account goes to the organization's channel of that account, if any,
   * and only when that channel is verified by the same app secrets: a channel with its own secret
   * takes nothing signed with another.
   */
  private async routeTo(
    db: EntityManager,
    received: WebhookChannel,
    account: string | undefined,
    routed: Map<string, Route>,
  ): Promise<Route> {
    if (account === undefined || account === received.metaId) return received;
    let route = routed.get(account);
    if (route === undefined) {
      const [row] = (await db.query(
        `${CHANNEL_COLUMNS[received.kind]}
          WHERE organization_id = $1 AND ${META_ID_COLUMN[received.kind]} = $2 AND deleted_at IS NULL
          ORDER BY created_at LIMIT 1`,
        [received.organizationId, account],
      )) as ChannelRow[];
      const target = row ? toWebhookChannel(received.kind, row) : undefined;
      route = !target ? 'no_channel' : this.sameSigners(received, target) ? target : 'other_secret';
      routed.set(account, route);
    }
    return route;
  }

  private sameSigners(a: WebhookChannel, b: WebhookChannel): boolean {
    if (a.appSecretEncrypted === null || b.appSecretEncrypted === null) {
      return a.appSecretEncrypted === b.appSecretEncrypted;
    }
    const [mine, theirs] = [this.signingSecrets(a), this.signingSecrets(b)];
    return mine.length === 1 && theirs.length === 1 && mine[0] === theirs[0];
  }

  /** Durable once this resolves; the same bytes again for the same channel are one row. */
  async store(channel: WebhookChannel, rawBody: Buffer): Promise<void> {
    const now = toIso(this.clock.now());
    await this.dataSource.query(
      `INSERT INTO webhook_inbox (id, organization_id, channel_kind, channel_id, body, body_sha256,
                                  status, attempts, next_attempt_at, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7)
       ON CONFLICT (channel_id, body_sha256) DO NOTHING`,
      [
        uuidv7(this.clock.now()),
        channel.organizationId,
        channel.kind,
        channel.id,
        rawBody,
        createHash('sha256').update(rawBody).digest('hex'),
        now,
      ],
    );
    void this.drain();
  }

  /**
   * Processes every due notification, one transaction each. One drain at a time per process; a
   * call during a drain makes it run once more, so nothing stored meanwhile waits for the sweep.
   */
  drain(): Promise<void> {
    if (this.draining) {
      this.drainAgain = true;
      return this.draining;
    }
    // The inbox's own work, even when a webhook request started it: not logged under its id.
    this.draining = withLogContext({}, async () => {
      do {
        this.drainAgain = false;
        while (!this.stopped && (await this.processNext())) {
          // one notification per transaction
        }
      } while (this.drainAgain && !this.stopped);
    })
      .catch((error: unknown) => {
        this.logger.warn(
          { err: error },
          'webhook notifications could not be read; the sweep tries again',
        );
      })
      .finally(() => {
        this.draining = undefined;
      });
    return this.draining;
  }

  /** Takes one due notification and applies it; false when none is due. */
  private async processNext(): Promise<boolean> {
    const now = this.clock.now();
    let claimed: InboxRow | undefined;
    try {
      await this.dataSource.transaction(async (db) => {
        [claimed] = (await db.query(
          `SELECT id, organization_id, channel_kind, channel_id, body, attempts FROM webhook_inbox
            WHERE status = 'pending' AND next_attempt_at <= $1
            ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [toIso(now)],
        )) as InboxRow[];
        if (!claimed) return;
        const problems = await this.apply(db, claimed);
        await db.query(
          `UPDATE webhook_inbox SET status = $2, error = $3, processed_at = $4, attempts = attempts + 1
            WHERE id = $1`,
          [
            claimed.id,
            problems.length > 0 ? 'malformed' : 'processed',
            problems.length > 0 ? problems.join('; ').slice(0, 2000) : null,
            toIso(now),
          ],
        );
        if (problems.length > 0) {
          this.logger.warn(
            { inboxId: claimed.id, channelId: claimed.channel_id, problems: problems.slice(0, 5) },
            'a signed webhook notification could not be read in full; it is kept for inspection',
          );
        }
      });
    } catch (error) {
      if (!claimed) throw error;
      await this.postpone(claimed, now, error);
    }
    return claimed !== undefined;
  }

  /** Processing failed and was rolled back: tried again later, set aside after a few tries. */
  private async postpone(row: InboxRow, now: number, error: unknown): Promise<void> {
    const attempts = row.attempts + 1;
    const giveUp = attempts >= MAX_PROCESSING_ATTEMPTS;
    const message = error instanceof Error ? error.message : String(error);
    this.logger.error(
      { err: error, inboxId: row.id, attempts },
      giveUp
        ? 'a webhook notification could not be processed; set aside'
        : 'a webhook notification could not be processed; trying again later',
    );
    await this.dataSource.query(
      `UPDATE webhook_inbox SET attempts = $2, next_attempt_at = $3, error = $4,
              status = CASE WHEN $5 THEN 'malformed' ELSE status END
        WHERE id = $1 AND status = 'pending'`,
      [row.id, attempts, toIso(now + retryDelayMs(attempts)), message.slice(0, 2000), giveUp],
    );
  }

  /** Applies one notification in its transaction; returns what could not be read. */
  private async apply(db: EntityManager, row: InboxRow): Promise<string[]> {
    const channel = await this.findChannel(row.channel_kind, row.channel_id, db);
    if (!channel) return ['the channel no longer exists'];
    let body: unknown;
    try {
      body = JSON.parse(UTF8.decode(row.body));
    } catch (error) {
      return [error instanceof SyntaxError ? 'the body is not JSON' : 'the body is not UTF-8'];
    }
    const parsed: ParsedNotification =
      channel.kind === 'whatsapp'
        ? parseWhatsappNotification(body)
        : parseMessangerNotification(body);
    const problems = new Set(parsed.problems);
    const routed = new Map<string, Route>();
    for (const event of parsed.events) {
      const target = await this.routeTo(db, channel, event.account, routed);
      if (target === 'no_channel') {
        problems.add(
          `for ${ACCOUNT_NAME[channel.kind]} ${event.account}, which no channel of this organization has`,
        );
      } else if (target === 'other_secret') {
        problems.add(
          `for ${ACCOUNT_NAME[channel.kind]} ${event.account}, whose channel is verified with another app secret`,
        );
      } else if (event.kind === 'message') {
        await this.receive(db, target, event);
      } else {
        await this.updateStatus(db, target, event);
      }
    }
    return [...problems];
  }

  /** Kept once; a new one may opt its sender out or back in, and is told to the agent. */
  private async receive(
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

  /** Handed to the modules that sent those messages, once per (message, status). */
  private async updateStatus(
    db: EntityManager,
    channel: WebhookChannel,
    status: InboundStatus,
  ): Promise<void> {
    const keys =
      'ids' in status.messages
        ? status.messages.ids
        : [`watermark:${status.messages.recipient}:${status.messages.watermark}`];
    const fresh = returnedRows<{ message_id: string }>(
      await db.query(
        `INSERT INTO channel_message_statuses (channel_id, message_id, status, at)
         SELECT $1, key, $2, $3 FROM unnest($4::text[]) AS key
         ON CONFLICT DO NOTHING RETURNING message_id`,
        [channel.id, status.status, toIso(status.at), keys],
      ),
    ).map((row) => row.message_id);
    if (fresh.length === 0) return; // a resend
    await this.conversations.publishStatus(db, {
      organizationId: channel.organizationId,
      agentId: channel.agentId,
      channelId: channel.id,
      kind: channel.kind,
      status: status.status,
      at: status.at,
      messages: 'ids' in status.messages ? { ids: fresh } : status.messages,
      error: status.error,
    });
  }
}
