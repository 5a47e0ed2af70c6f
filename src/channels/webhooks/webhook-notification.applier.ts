import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isRefusedValue } from '../../common/database-errors';
import { escapeUnstorable } from '../../common/http/input-guards';
import type { ChannelKind } from '../channel-transport';
import { AccountErrorsHandler } from './account-errors.handler';
import { IdentityChangesHandler } from './identity-changes.handler';
import { InboundMessagesHandler, ReceivedMessage } from './inbound-messages.handler';
import type { ItemRefusal, ReadItem, SetAsideItem } from './inbound-notification';
import { StatusUpdatesHandler } from './status-updates.handler';
import { Routes, WebhookChannel, WebhookChannels } from './webhook-channels';
import { ChannelKinds } from '../kinds/channel-kinds';
import { WhatsappTemplateUpdatesHandler } from '../kinds/whatsapp/templates/whatsapp-template-updates.handler';
import { MarketingPreferencesHandler } from './marketing-preferences.handler';

/** A notification as the inbox keeps it. */
export interface StoredNotification {
  channel_kind: ChannelKind;
  channel_id: string;
  /** bytea: a Buffer on pg, a Uint8Array on PGlite. */
  body: Uint8Array;
}

/** Why a whole notification was set aside (a label of agentline_webhook_set_aside_total). */
export type NotificationReason =
  'not_utf8' | 'not_json' | 'unexpected_shape' | 'channel_removed' | 'processing_failed';

/** What processing a notification came to: what applied is in the database, this is the rest. */
export interface ProcessingOutcome {
  /** The body as a whole could not be read: nothing in it applied. */
  unreadable?: { reason: NotificationReason; detail: string };
  setAside: SetAsideItem[];
}

const unreadable = (reason: NotificationReason, detail: string): ProcessingOutcome => ({
  unreadable: { reason, detail },
  setAside: [],
});

/**
 * An item whose content PostgreSQL refused, or that JavaScript could not convert (a date out of
 * range), fails the same way on every try: it is set aside. Anything else (the connection, a
 * deadlock) may pass next time, and fails the whole notification, which is tried again.
 */
export function refusedContent(error: unknown): ItemRefusal | undefined {
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

/** Strict: a body that is not UTF-8 is malformed, not silently repaired. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A notification read and routed, its items not applied yet. */
interface ReadNotification {
  channel: WebhookChannel;
  kind: ReturnType<ChannelKinds['get']>;
  items: readonly ReadItem[];
  setAside: SetAsideItem[];
  routes: Routes;
}

/**
 * What the notifications of one transaction share: the channels their URLs name and the routes
 * of their accounts, each read once, and the messages not written yet (written together, before
 * anything else applies and at the end, so they keep their place among the other items).
 */
class Batch {
  private readonly channels = new Map<string, Promise<WebhookChannel | undefined>>();
  private readonly routes = new Map<string, Routes>();
  readonly messages: ReceivedMessage[] = [];

  constructor(
    private readonly db: EntityManager,
    private readonly lookups: WebhookChannels,
  ) {}

  channel(kind: ChannelKind, id: string): Promise<WebhookChannel | undefined> {
    const key = `${kind}:${id}`;
    let found = this.channels.get(key);
    if (!found) {
      found = this.lookups.find(kind, id, this.db);
      this.channels.set(key, found);
    }
    return found;
  }

  routesFor(channel: WebhookChannel): Routes {
    let routes = this.routes.get(channel.id);
    if (!routes) {
      routes = this.lookups.routesFor(this.db, channel);
      this.routes.set(channel.id, routes);
    }
    return routes;
  }
}

/**
 * What stored notifications say, applied in the inbox's transaction: each body read, each of its
 * events routed to its channel and handed to the messages' or the statuses' handler.
 */
@Injectable()
export class WebhookNotificationApplier {
  constructor(
    private readonly channels: WebhookChannels,
    private readonly messages: InboundMessagesHandler,
    private readonly statuses: StatusUpdatesHandler,
    private readonly accountErrors: AccountErrorsHandler,
    private readonly identityChanges: IdentityChangesHandler,
    private readonly marketingPreferences: MarketingPreferencesHandler,
    private readonly templateUpdates: WhatsappTemplateUpdatesHandler,
    private readonly kinds: ChannelKinds,
  ) {}

  /**
   * Applies notifications in one transaction, in order, item by item: an unreadable item is set
   * aside and the others apply. Returns what did not, per notification. Without savepoints, the
   * messages of all of them are written in set-based statements (InboundMessagesHandler); with
   * them, item by item, each in its savepoint.
   */
  async apply(
    db: EntityManager,
    rows: readonly StoredNotification[],
    savepoints: boolean,
  ): Promise<ProcessingOutcome[]> {
    const batch = new Batch(db, this.channels);
    const read: (ReadNotification | ProcessingOutcome)[] = [];
    for (const row of rows) read.push(await this.read(batch, row));
    const readable = read.filter((entry): entry is ReadNotification => 'items' in entry);
    await this.statuses.lockStatusedMessages(db, readable);
    const outcomes: ProcessingOutcome[] = [];
    for (const entry of read) {
      outcomes.push('items' in entry ? await this.applyItems(db, batch, entry, savepoints) : entry);
    }
    await this.writeMessages(db, batch);
    return outcomes;
  }

  /** The body read (UTF-8, JSON, the kind's parser) and its channel found; nothing applied. */
  private async read(
    batch: Batch,
    row: StoredNotification,
  ): Promise<ReadNotification | ProcessingOutcome> {
    const channel = await batch.channel(row.channel_kind, row.channel_id);
    if (!channel) return unreadable('channel_removed', 'the channel no longer exists');
    let body: unknown;
    try {
      body = JSON.parse(UTF8.decode(row.body));
    } catch (error) {
      return error instanceof SyntaxError
        ? unreadable('not_json', 'the body is not JSON')
        : unreadable('not_utf8', 'the body is not UTF-8');
    }
    const kind = this.kinds.get(channel.kind);
    const parsed = kind.parseNotification(body);
    if (parsed.unreadable) return unreadable('unexpected_shape', parsed.unreadable);
    return {
      channel,
      kind,
      items: parsed.read,
      setAside: [...parsed.setAside],
      routes: batch.routesFor(channel),
    };
  }

  private async applyItems(
    db: EntityManager,
    batch: Batch,
    { kind, items, setAside, routes }: ReadNotification,
    savepoints: boolean,
  ): Promise<ProcessingOutcome> {
    for (const item of items) {
      const target = await routes(item.event.account);
      const refusal: ItemRefusal | undefined =
        target === 'no_channel'
          ? {
              reason: 'unknown_account',
              detail: `for ${kind.webhookAccountName} ${item.event.account}, which no channel of this organization has`,
            }
          : target === 'other_secret'
            ? {
                reason: 'other_app_secret',
                detail: `for ${kind.webhookAccountName} ${item.event.account}, whose channel is verified with another app secret`,
              }
            : await this.applyItem(db, batch, target, item, savepoints);
      if (refusal)
        setAside.push({ path: item.path, item: item.item, content: item.content, ...refusal });
    }
    return { setAside };
  }

  /** The messages held back so far, written; before any other item applies, and at the end. */
  private async writeMessages(db: EntityManager, batch: Batch): Promise<void> {
    if (batch.messages.length === 0) return;
    await this.messages.receive(db, batch.messages.splice(0));
  }

  /**
   * One item. With `savepoint`, the second line behind the parser's checks: when PostgreSQL refuses
   * what the item holds, only that item is undone and set aside.
   */
  private async applyItem(
    db: EntityManager,
    batch: Batch,
    channel: WebhookChannel,
    item: ReadItem,
    savepoint: boolean,
  ): Promise<ItemRefusal | undefined> {
    const { event } = item;
    if (event.kind === 'message' && !savepoint) {
      batch.messages.push({ channel, message: event });
      return undefined;
    }
    // Whatever this item does may read what the messages before it wrote.
    await this.writeMessages(db, batch);
    // Only a template notification can be refused here (its account is routed by the handler).
    const applyEvent = async (): Promise<ItemRefusal | undefined> => {
      switch (event.kind) {
        case 'message':
          await this.messages.receive(db, [{ channel, message: event }]);
          return undefined;
        case 'status':
          await this.statuses.updateStatus(db, channel, event);
          return undefined;
        case 'identity':
          await this.identityChanges.apply(db, channel, event);
          return undefined;
        case 'preference':
          await this.marketingPreferences.apply(db, channel, event);
          return undefined;
        case 'template':
          return this.templateUpdates.apply(db, channel, event);
        case 'error':
          await this.accountErrors.report(db, channel, event);
          return undefined;
      }
    };
    if (!savepoint) return applyEvent();
    await db.query('SAVEPOINT webhook_item');
    let refused: ItemRefusal | undefined;
    try {
      refused = await applyEvent();
    } catch (error) {
      const refusal = refusedContent(error);
      if (!refusal) throw error;
      await db.query('ROLLBACK TO SAVEPOINT webhook_item');
      return refusal;
    }
    await db.query('RELEASE SAVEPOINT webhook_item');
    return refused;
  }
}
