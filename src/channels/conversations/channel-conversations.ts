import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import type { ChannelKind, MessageStatus } from '../channel-transport';
import { ChannelKinds } from '../kinds/channel-kinds';
import type { MessagePricing } from '../webhooks/inbound-notification';
import { ChannelIdentities } from './channel-identities';

/** Meta's customer service window: free-form messages only this long after the client wrote. */
export const CUSTOMER_SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What a sender must know about one recipient of one channel before it writes to them. */
export interface ConversationState {
  optedOut: boolean;
  /** Told Meta to stop marketing messages (any form): MARKETING templates are not sent to them. */
  marketingOptedOut: boolean;
  /** When the recipient last wrote to this channel (ms), or null if never. */
  lastInboundAt: number | null;
  /** Whether free-form text is allowed now (the last inbound message is under 24 hours old). */
  windowOpen: boolean;
}

/**
 * Which recipient of which channel (`recipient`: E.164 phone or BSUID for WhatsApp, PSID for
 * Messenger). With its `kind`, the kind's rules give the recipient's other forms (a Brazilian
 * mobile with and without its ninth digit); every form of the person counts.
 */
export interface ConversationKey {
  channelId: string;
  kind?: ChannelKind;
  recipient: string;
}

/** A status Meta reported for messages a channel sent (WhatsApp `statuses[]`, Messenger delivery/read). */
export interface ChannelStatusUpdate {
  organizationId: string;
  agentId: string;
  channelId: string;
  kind: ChannelKind;
  status: MessageStatus;
  /** Meta's timestamp of the status (ms). */
  at: number;
  /**
   * Which messages: the provider's ids (wamid, mid), or every message to `recipient` sent up to
   * `sentUpTo` (ms; Messenger's watermark).
   */
  messages: { ids: string[] } | { recipient: string; sentUpTo: number };
  /**
   * `failed` only: the provider's errors[0], and whether it means text refused outside the
   * messaging window (a template may go instead; the channel kind's transport decides).
   */
  error?: { code: string; title: string; resendAsTemplate: boolean };
  /** What the message costs, when the status says; the delivery keeps the last one. */
  pricing?: MessagePricing;
}

/** A status as the webhook reports it; its kind's transport classifies the error. */
export type ReportedStatus = Omit<ChannelStatusUpdate, 'error'> & {
  error?: { code: string; title: string };
};

/** A status of a sent message, kept when it arrived, for a send whose outcome is written later. */
export interface ReceivedStatus {
  channelId: string;
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  at: number;
  error?: ChannelStatusUpdate['error'];
  pricing?: MessagePricing;
}

/** Runs in the transaction that takes the status off the webhook inbox: applied once, or not at all. */
export type ChannelStatusListener = (
  db: EntityManager,
  update: ChannelStatusUpdate,
) => Promise<void>;

/**
 * The lock key (ChannelConversations.lockMessages) of a recipient's statuses by watermark: a
 * watermark and the send's outcome of any message to that recipient take it.
 */
export const watermarkLockKey = (recipient: string): string => `watermark:${recipient}`;

/** The conversation key as one string, for maps. */
export const conversationKey = (key: ConversationKey): string =>
  `${key.channelId}\n${key.recipient}`;

/**
 * What channels know of their conversations, for the modules that write through them: whether a
 * recipient opted out, whether the 24-hour window is open, and the statuses of sent messages.
 */
@Injectable()
export class ChannelConversations {
  private readonly statusListeners: ChannelStatusListener[] = [];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly kinds: ChannelKinds,
    private readonly identities: ChannelIdentities,
  ) {}

  /** The scheduler applies statuses to its deliveries; channels own only the notifications. */
  onStatus(listener: ChannelStatusListener): void {
    this.statusListeners.push(listener);
  }

  /** Called by the webhook processor, inside the transaction that consumes the notification. */
  async publishStatus(db: EntityManager, reported: ReportedStatus): Promise<void> {
    const { error, ...rest } = reported;
    const update: ChannelStatusUpdate = {
      ...rest,
      ...(error && { error: this.classify(reported.kind, error) }),
    };
    for (const listener of this.statusListeners) await listener(db, update);
  }

  async state(key: ConversationKey, db?: EntityManager): Promise<ConversationState> {
    const states = await this.states([key], db);
    return states.get(conversationKey(key)) as ConversationState;
  }

  /**
   * Many recipients in two queries, however many (the delivery worker asks for a claimed batch at
   * once): every form of each recipient (ChannelIdentities), then, over all of them at once, whether
   * any form opted out (of everything, or of marketing at Meta) and when any form last wrote a message that opens the window (its phone as
   * `sender`, its BSUID as `sender_user_id`; each an index range).
   */
  async states(
    keys: readonly ConversationKey[],
    db: EntityManager = this.dataSource.manager,
  ): Promise<Map<string, ConversationState>> {
    const now = this.clock.now();
    const result = new Map<string, ConversationState>();
    for (const key of keys) {
      result.set(conversationKey(key), {
        optedOut: false,
        marketingOptedOut: false,
        lastInboundAt: null,
        windowOpen: false,
      });
    }
    if (keys.length === 0) return result;
    const forms = await this.identities.formsOf(db, keys);
    const rows = (await db.query(
      `SELECT f.k,
              bool_or(EXISTS (SELECT 1 FROM channel_opt_outs o
                               WHERE o.channel_id = f.channel_id AND o.recipient = f.form)) AS opted_out,
              bool_or(EXISTS (SELECT 1 FROM channel_marketing_opt_outs o
                               WHERE o.channel_id = f.channel_id AND o.recipient = f.form))
                AS marketing_opted_out,
              max(GREATEST(
                (SELECT max(m.received_at) FROM channel_messages m
                  WHERE m.channel_id = f.channel_id AND m.sender = f.form AND m.opens_window),
                (SELECT max(m.received_at) FROM channel_messages m
                  WHERE m.channel_id = f.channel_id AND m.sender_user_id = f.form AND m.opens_window)
              )) AS last_at
         FROM unnest($1::int[], $2::uuid[], $3::text[]) AS f(k, channel_id, form)
        GROUP BY f.k`,
      [forms.keys, forms.channelIds, forms.forms],
    )) as {
      k: number;
      opted_out: boolean;
      marketing_opted_out: boolean;
      last_at: Date | string | null;
    }[];
    for (const row of rows) {
      const state = result.get(conversationKey(keys[Number(row.k)]));
      if (!state) continue;
      if (row.opted_out) state.optedOut = true;
      if (row.marketing_opted_out) state.marketingOptedOut = true;
      if (row.last_at === null) continue;
      const lastInboundAt = new Date(row.last_at).getTime();
      // The same recipient may be asked twice in a batch: the latest message wins.
      if (state.lastInboundAt === null || lastInboundAt > state.lastInboundAt) {
        state.lastInboundAt = lastInboundAt;
        state.windowOpen = now - lastInboundAt < CUSTOMER_SERVICE_WINDOW_MS;
      }
    }
    return result;
  }

  /**
   * Serializes, per sent message, the two writes that must see each other: a status Meta sent
   * (stored, then applied to the delivery that has its id) and the send's own outcome (which
   * writes the id, then applies the statuses stored for it). Each takes these locks in its
   * transaction, before reading what the other writes, and holds them until it commits; so
   * whichever commits second sees the first's work. Without them each could read before the
   * other committed, and the status was stored but never applied (issue 17). Each transaction
   * takes all its locks in one call, sorted (the webhook's for every status of a notification,
   * the outcome's for its whole batch), so two such transactions cannot wait on each other.
   */
  async lockMessages(
    db: EntityManager,
    messages: readonly { channelId: string; messageId: string }[],
  ): Promise<void> {
    if (messages.length === 0) return;
    await db.query(
      `SELECT pg_advisory_xact_lock(k.lock) FROM (
         SELECT DISTINCT hashtextextended(m.channel_id || ':' || m.message_id, 0) AS lock
           FROM unnest($1::text[], $2::text[]) AS m(channel_id, message_id)
          ORDER BY 1) k`,
      [messages.map((m) => m.channelId), messages.map((m) => m.messageId)],
    );
  }

  /**
   * Statuses already received for these messages (Meta's ids on their channels): a status can
   * arrive before the send's own outcome is written, and is applied then (a `sent` one only for
   * its pricing). A `failed` one comes with
   * its error, classified by the channel kind's transport as when it is published.
   */
  async receivedStatuses(
    db: EntityManager,
    messages: readonly { channelId: string; kind: ChannelKind; messageId: string }[],
  ): Promise<ReceivedStatus[]> {
    if (messages.length === 0) return [];
    const rows = (await db.query(
      `SELECT s.channel_id, s.message_id, s.status, s.at, s.error_code, s.error_title, s.pricing
         FROM channel_message_statuses s
         JOIN unnest($1::uuid[], $2::text[]) AS k(channel_id, message_id) USING (channel_id, message_id)
        WHERE s.status IN ('delivered', 'read', 'failed') OR s.pricing IS NOT NULL
        -- Meta's seconds often tie: sent, delivered, read and failed in their own order.
        ORDER BY s.at, array_position(ARRAY['sent', 'delivered', 'read', 'failed'], s.status)`,
      [messages.map((m) => m.channelId), messages.map((m) => m.messageId)],
    )) as {
      channel_id: string;
      message_id: string;
      status: ReceivedStatus['status'];
      at: Date | string;
      error_code: string | null;
      error_title: string | null;
      pricing: MessagePricing | string | null;
    }[];
    const kinds = new Map(messages.map((m) => [m.channelId, m.kind]));
    return rows.map((row) => ({
      channelId: row.channel_id,
      messageId: row.message_id,
      status: row.status,
      at: new Date(row.at).getTime(),
      ...(row.pricing !== null && {
        pricing: (typeof row.pricing === 'string'
          ? JSON.parse(row.pricing)
          : row.pricing) as MessagePricing,
      }),
      ...(row.status === 'failed' && {
        error: this.classify(kinds.get(row.channel_id) as ChannelKind, {
          code: row.error_code ?? 'unknown',
          title: row.error_title ?? 'Meta reported the message as failed.',
        }),
      }),
    }));
  }

  /** Whether the kind's transport reads the error as text refused outside the window. */
  private classify(kind: ChannelKind, error: { code: string; title: string }) {
    return { ...error, resendAsTemplate: this.kinds.transport(kind).resendsAsTemplate(error.code) };
  }

  /**
   * The highest `delivered` and `read` watermarks already received for these recipients (Messenger):
   * a watermark can arrive before the send's own outcome of a message it covers is written.
   */
  async receivedWatermarks(
    db: EntityManager,
    recipients: readonly { channelId: string; recipient: string }[],
  ): Promise<
    {
      channelId: string;
      recipient: string;
      status: 'delivered' | 'read';
      watermark: number;
      at: number;
    }[]
  > {
    if (recipients.length === 0) return [];
    const rows = (await db.query(
      `SELECT w.channel_id, w.recipient, w.status, w.watermark, w.at FROM channel_watermarks w
         JOIN unnest($1::uuid[], $2::text[]) AS k(channel_id, recipient) USING (channel_id, recipient)
        ORDER BY w.at`,
      [recipients.map((r) => r.channelId), recipients.map((r) => r.recipient)],
    )) as {
      channel_id: string;
      recipient: string;
      status: 'delivered' | 'read';
      watermark: Date | string;
      at: Date | string;
    }[];
    return rows.map((row) => ({
      channelId: row.channel_id,
      recipient: row.recipient,
      status: row.status,
      watermark: new Date(row.watermark).getTime(),
      at: new Date(row.at).getTime(),
    }));
  }
}
