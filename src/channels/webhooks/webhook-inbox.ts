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
import { AgentEventsOutbox } from '../../agent-events';
import { Clock } from '../../common/clock';
import { isRefusedValue } from '../../common/database-errors';
import { escapeUnstorable } from '../../common/http/input-guards';
import { SecretBox } from '../../common/crypto/secret-box';
import { isUuid, uuidv7 } from '../../common/ids';
import { toIso } from '../../common/time';
import { returnedRows } from '../../database/sql';
import { Metrics } from '../../metrics';
import type { ChannelKind } from '../channel-transport';
import { CHANNELS_CONFIG, ChannelsConfig } from '../channels.config';
import { appSecretAad } from '../channels.service';
import { ChannelConversations } from '../conversations/channel-conversations';
import { ChannelMessageEntity } from '../conversations/conversation.entities';
import { toChannelMessageResponse } from '../conversations/conversation.mappers';
import {
  InboundMessage,
  InboundStatus,
  ItemRefusal,
  parseMessangerNotification,
  parseWhatsappNotification,
  ParsedNotification,
  ReadItem,
  SetAsideItem,
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

const PARSERS: Record<ChannelKind, (body: unknown) => ParsedNotification> = {
  whatsapp: parseWhatsappNotification,
  messanger: parseMessangerNotification,
};

/** One processing of a notification: the row once claimed, and whether items get savepoints. */
interface ProcessingAttempt {
  row?: InboxRow;
  savepoints: boolean;
}

/** Why a whole notification was set aside (a label of agentline_webhook_set_aside_total). */
type NotificationReason =
  'not_utf8' | 'not_json' | 'unexpected_shape' | 'channel_removed' | 'processing_failed';

/** What processing a notification came to: what applied is in the database, this is the rest. */
interface ProcessingOutcome {
  /** The body as a whole could not be read: nothing in it applied. */
  unreadable?: { reason: NotificationReason; detail: string };
  setAside: SetAsideItem[];
}

const unreadable = (reason: NotificationReason, detail: string): ProcessingOutcome => ({
  unreadable: { reason, detail },
  setAside: [],
});

/** The row's `error`: the notification's problem or its items', each with where it sits. */
function describeOutcome(outcome: ProcessingOutcome): string | null {
  if (outcome.unreadable) return outcome.unreadable.detail;
  if (outcome.setAside.length === 0) return null;
  return outcome.setAside
    .map((item) => `${item.path}: ${item.detail}`)
    .join('; ')
    .slice(0, 2000);
}

/** Kept for inspection, not for reading back: the rest is in the notification's body. */
const MAX_SET_ASIDE_CONTENT = 10_000;

/**
 * An item as JSON text. JSON.stringify escapes NUL and unpaired surrogates (`\u0000`), so what
 * PostgreSQL refused in the item is storable here; a cut never leaves half a surrogate pair.
 */
function setAsideContent(content: unknown): string {
  const json = JSON.stringify(content) ?? 'null';
  if (json.length <= MAX_SET_ASIDE_CONTENT) return json;
  const cut = json.slice(0, MAX_SET_ASIDE_CONTENT);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * An item whose content PostgreSQL refused, or that JavaScript could not convert (a date out of
 * range), fails the same way on every try: it is set aside. Anything else (the connection, a
 * deadlock) may pass next time, and fails the whole notification, which is tried again.
 */
function refusedContent(error: unknown): ItemRefusal | undefined {
  if (error instanceof RangeError) {
    return {
      reason: 'database_refused',
      detail: escapeUnstorable(`unconvertible: ${error.message}`),
    };
  }
  if (!isRefusedValue(error)) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return {
    reason: 'database_refused',
    detail: escapeUnstorable(`PostgreSQL refused it (${String(code)}): ${String(message)}`).slice(
      0,
      500,
    ),
  };
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
    private readonly metrics: Metrics,
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
    const attempt: ProcessingAttempt = { savepoints: false };
    try {
      await this.process(now, attempt);
    } catch (error) {
      if (!attempt.row) throw error;
      let failure = error;
      if (refusedContent(error)) {
        // The checks missed something PostgreSQL refuses: at once again, each item in a savepoint.
        attempt.savepoints = true;
        failure = await this.process(now, attempt).then(
          () => undefined,
          (again: unknown) => again,
        );
      }
      if (failure !== undefined) await this.postpone(attempt.row, now, failure);
    }
    return attempt.row !== undefined;
  }

  /**
   * One notification in one transaction: the next due one, or `attempt.row` again. Savepoints
   * only on the second pass: each costs two statements per item, and on PostgreSQL more than 64
   * subtransactions that write slow every session's snapshots while the transaction lasts.
   */
  private async process(now: number, attempt: ProcessingAttempt): Promise<void> {
    let outcome: ProcessingOutcome | undefined;
    const again = attempt.row?.id ?? null;
    await this.dataSource.transaction(async (db) => {
      const [row] = (await db.query(
        `SELECT id, organization_id, channel_kind, channel_id, body, attempts FROM webhook_inbox
          WHERE status = 'pending' AND next_attempt_at <= $1 AND ($2::uuid IS NULL OR id = $2)
          ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
        [toIso(now), again],
      )) as InboxRow[];
      // Taken by another replica between the passes: it applies it.
      if (!row) return;
      attempt.row = row;
      outcome = await this.apply(db, row, attempt.savepoints);
      await this.keepSetAside(db, row, outcome.setAside, now);
      const error = describeOutcome(outcome);
      await db.query(
        `UPDATE webhook_inbox SET status = $2, error = $3, processed_at = $4, attempts = attempts + 1
          WHERE id = $1`,
        [row.id, error === null ? 'processed' : 'malformed', error, toIso(now)],
      );
    });
    if (attempt.row && outcome) this.report(attempt.row, outcome);
  }

  /** Counted and logged once committed: a notification tried again is not counted twice. */
  private report(row: InboxRow, outcome: ProcessingOutcome): void {
    const channelKind = row.channel_kind;
    if (outcome.unreadable) {
      this.metrics.webhookSetAside.inc({
        channel_kind: channelKind,
        item: 'notification',
        reason: outcome.unreadable.reason,
      });
    }
    for (const item of outcome.setAside) {
      this.metrics.webhookSetAside.inc({
        channel_kind: channelKind,
        item: item.item,
        reason: item.reason,
      });
    }
    if (outcome.unreadable || outcome.setAside.length > 0) {
      this.logger.warn(
        {
          inboxId: row.id,
          channelId: row.channel_id,
          problems: outcome.unreadable
            ? [outcome.unreadable.detail]
            : outcome.setAside.slice(0, 5).map((item) => `${item.path}: ${item.detail}`),
          setAside: outcome.setAside.length,
        },
        outcome.unreadable
          ? 'a signed webhook notification could not be read; it is kept for inspection'
          : 'items of a signed webhook notification could not be read; they are set aside, the rest applied',
      );
    }
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
      [
        row.id,
        attempts,
        toIso(now + retryDelayMs(attempts)),
        escapeUnstorable(message).slice(0, 2000),
        giveUp,
      ],
    );
    if (giveUp) {
      this.metrics.webhookSetAside.inc({
        channel_kind: row.channel_kind,
        item: 'notification',
        reason: 'processing_failed',
      });
    }
  }

  /**
   * Applies one notification in its transaction, item by item: an unreadable item is set aside
   * and the others apply. Returns what did not.
   */
  private async apply(
    db: EntityManager,
    row: InboxRow,
    savepoints: boolean,
  ): Promise<ProcessingOutcome> {
    const channel = await this.findChannel(row.channel_kind, row.channel_id, db);
    if (!channel) return unreadable('channel_removed', 'the channel no longer exists');
    let body: unknown;
    try {
      body = JSON.parse(UTF8.decode(row.body));
    } catch (error) {
      return error instanceof SyntaxError
        ? unreadable('not_json', 'the body is not JSON')
        : unreadable('not_utf8', 'the body is not UTF-8');
    }
    const parsed = PARSERS[channel.kind](body);
    if (parsed.unreadable) return unreadable('unexpected_shape', parsed.unreadable);
    const setAside = [...parsed.setAside];
    const routed = new Map<string, Route>();
    await this.lockStatusedMessages(db, channel, parsed.read, routed);
    for (const item of parsed.read) {
      const target = await this.routeTo(db, channel, item.event.account, routed);
      const refusal: ItemRefusal | undefined =
        target === 'no_channel'
          ? {
              reason: 'unknown_account',
              detail: `for ${ACCOUNT_NAME[channel.kind]} ${item.event.account}, which no channel of this organization has`,
            }
          : target === 'other_secret'
            ? {
                reason: 'other_app_secret',
                detail: `for ${ACCOUNT_NAME[channel.kind]} ${item.event.account}, whose channel is verified with another app secret`,
              }
            : await this.applyItem(db, target, item, savepoints);
      if (refusal)
        setAside.push({ path: item.path, item: item.item, content: item.content, ...refusal });
    }
    return { setAside };
  }

  /**
   * Every message a status of this notification is about, locked at once and in one order before
   * any item applies (see ChannelConversations.lockMessages): locked status by status, a
   * notification with statuses for m2 then m1 waited in a cycle with a send's outcome locking m1
   * and m2.
   */
  private async lockStatusedMessages(
    db: EntityManager,
    channel: WebhookChannel,
    items: readonly ReadItem[],
    routed: Map<string, Route>,
  ): Promise<void> {
    const messages: { channelId: string; messageId: string }[] = [];
    for (const { event } of items) {
      if (event.kind !== 'status' || !('ids' in event.messages)) continue;
      const target = await this.routeTo(db, channel, event.account, routed);
      if (typeof target === 'string') continue;
      for (const messageId of event.messages.ids)
        messages.push({ channelId: target.id, messageId });
    }
    await this.conversations.lockMessages(db, messages);
  }

  /**
   * One item. With `savepoint`, the second line behind the parser's checks: when PostgreSQL refuses
   * what the item holds, only that item is undone and set aside.
   */
  private async applyItem(
    db: EntityManager,
    channel: WebhookChannel,
    item: ReadItem,
    savepoint: boolean,
  ): Promise<ItemRefusal | undefined> {
    const applyEvent = () =>
      item.event.kind === 'message'
        ? this.receive(db, channel, item.event)
        : this.updateStatus(db, channel, item.event);
    if (!savepoint) {
      await applyEvent();
      return undefined;
    }
    await db.query('SAVEPOINT webhook_item');
    try {
      await applyEvent();
    } catch (error) {
      const refusal = refusedContent(error);
      if (!refusal) throw error;
      await db.query('ROLLBACK TO SAVEPOINT webhook_item');
      return refusal;
    }
    await db.query('RELEASE SAVEPOINT webhook_item');
    return undefined;
  }

  /** Each item that did not apply, with its reason, where it was and what it held. */
  private async keepSetAside(
    db: EntityManager,
    row: InboxRow,
    items: SetAsideItem[],
    now: number,
  ): Promise<void> {
    if (items.length === 0) return;
    await db.query(
      `INSERT INTO webhook_items_set_aside (id, inbox_id, organization_id, channel_kind, channel_id,
                                            path, item, reason, detail, content, created_at)
       SELECT id, $1, $2, $3, $4, path, item, reason, detail, content, $5
         FROM unnest($6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
              AS i(id, path, item, reason, detail, content)
       ON CONFLICT (inbox_id, path) DO NOTHING`,
      [
        row.id,
        row.organization_id,
        row.channel_kind,
        row.channel_id,
        toIso(now),
        items.map(() => uuidv7(now)),
        items.map((item) => item.path),
        items.map((item) => item.item),
        items.map((item) => item.reason),
        items.map((item) => item.detail),
        items.map((item) => setAsideContent(item.content)),
      ],
    );
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
    // Its messages were locked with the notification's others (lockStatusedMessages).
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
