import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { isRefusedValue } from '../../common/database-errors';
import { escapeUnstorable } from '../../common/http/input-guards';
import type { ChannelKind } from '../channel-transport';
import { AccountErrorsHandler } from './account-errors.handler';
import { IdentityChangesHandler } from './identity-changes.handler';
import { InboundMessagesHandler } from './inbound-messages.handler';
import type { ItemRefusal, ReadItem, SetAsideItem } from './inbound-notification';
import { StatusUpdatesHandler } from './status-updates.handler';
import { WebhookChannel, WebhookChannels } from './webhook-channels';
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

/**
 * What one stored notification says, applied in the inbox's transaction: its body read, each of
 * its events routed to its channel and handed to the messages' or the statuses' handler.
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
   * Applies one notification in its transaction, item by item: an unreadable item is set aside
   * and the others apply. Returns what did not.
   */
  async apply(
    db: EntityManager,
    row: StoredNotification,
    savepoints: boolean,
  ): Promise<ProcessingOutcome> {
    const channel = await this.channels.find(row.channel_kind, row.channel_id, db);
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
    const setAside = [...parsed.setAside];
    const routes = this.channels.routesFor(db, channel);
    await this.statuses.lockStatusedMessages(db, parsed.read, routes);
    for (const item of parsed.read) {
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
            : await this.applyItem(db, target, item, savepoints);
      if (refusal)
        setAside.push({ path: item.path, item: item.item, content: item.content, ...refusal });
    }
    return { setAside };
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
    const { event } = item;
    // Only a template notification can be refused here (its account is routed by the handler).
    const applyEvent = async (): Promise<ItemRefusal | undefined> => {
      switch (event.kind) {
        case 'message':
          await this.messages.receive(db, channel, event);
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
