import { setImmediate as nextTurn } from 'node:timers/promises';
import { withLogContext } from '../../common/logging/log-context';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { Clock } from '../../common/clock';
import { escapeUnstorable } from '../../common/http/input-guards';
import { uuidv7 } from '../../common/ids';
import { toIso } from '../../common/time';
import { isEmbeddedDataSource } from '../../database/data-source';
import { Metrics } from '../../metrics';
import type { SetAsideItem } from './inbound-notification';
import type { WebhookChannel } from './webhook-channels';
import {
  ProcessingOutcome,
  refusedContent,
  StoredNotification,
  WebhookNotificationApplier,
} from './webhook-notification.applier';

/** A row of webhook_inbox, once claimed. */
interface InboxRow extends StoredNotification {
  id: string;
  organization_id: string;
  attempts: number;
}

/** How often every replica looks for notifications nobody processed (a crash, an error). */
const SWEEP_INTERVAL_MS = 5_000;
/** A notification whose processing keeps failing is set aside (malformed) after this many tries. */
const MAX_PROCESSING_ATTEMPTS = 10;
const retryDelayMs = (attempts: number) => Math.min(60_000, 1_000 * 2 ** attempts);

/**
 * Notifications claimed and applied together, in one transaction: its fixed costs (the claim, the
 * channels, the commit) and its set-based writes are shared. A batch that fails is applied again
 * one notification at a time, so one bad notification holds back no other.
 */
const BATCH_SIZE = 50;
/**
 * PGlite runs a transaction's statements on this thread without a break: a smaller batch bounds
 * how long the event loop waits for one (every request of every organization waits with it).
 */
const EMBEDDED_BATCH_SIZE = 10;

/** The row's `error`: the notification's problem or its items', each with where it sits. */
function describeOutcome(outcome: ProcessingOutcome): string | null {
  if (outcome.unreadable) return escapeUnstorable(outcome.unreadable.detail);
  if (outcome.setAside.length === 0) return null;
  // Cut first: a cut may split a surrogate pair, which the escape then makes storable.
  return escapeUnstorable(
    outcome.setAside
      .map((item) => `${item.path}: ${item.detail}`)
      .join('; ')
      .slice(0, 2000),
  );
}

/** Kept for inspection, not for reading back: the rest is in the notification's body. */
const MAX_SET_ASIDE_CONTENT = 10_000;

/**
 * An item as JSON text. JSON.stringify escapes NUL and unpaired surrogates (`\u0000`), so what
 * PostgreSQL refused in the item is storable here; a cut never leaves half a surrogate pair.
 */
function setAsideContent(content: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(content) ?? 'null';
  } catch {
    // Nested deeper than JSON.stringify's stack: the notification's body still holds it.
    return '"(not written out: nested too deeply; see the notification body)"';
  }
  if (json.length <= MAX_SET_ASIDE_CONTENT) return json;
  const cut = json.slice(0, MAX_SET_ASIDE_CONTENT);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * Meta's notifications: stored before they are answered (`store`), then processed from the table
 * (`drain`), right away and by a sweep on every replica, each row by one process (SKIP LOCKED).
 * Processing (WebhookNotificationApplier) applies what a notification says once: a message id or
 * a (message, status) pair already seen changes nothing. A try that fails is rolled back and
 * tried again later; what cannot be read is set aside.
 */
@Injectable()
export class WebhookInbox implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookInbox.name);
  private draining?: Promise<void>;
  private drainAgain = false;
  private sweep?: NodeJS.Timeout;
  private stopped = false;
  private readonly embedded: boolean;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly notifications: WebhookNotificationApplier,
    private readonly metrics: Metrics,
  ) {
    this.embedded = isEmbeddedDataSource(dataSource);
  }

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
   * Processes every due notification, a batch per transaction. One drain at a time per process; a
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
        // On PostgreSQL the drain keeps one connection from the pool while it runs: its batches
        // never queue behind the requests for one (under a flood of webhooks they would, and
        // the backlog would grow). Not on PGlite, whose one connection every request needs.
        const runner = this.embedded ? undefined : this.dataSource.createQueryRunner();
        try {
          while (!this.stopped && (await this.processBatch(runner))) {
            // Between batches the event loop serves what waits: on PGlite the queries run on this
            // thread, and a backlog drained in one go would hold every request until it is done.
            await nextTurn();
          }
        } finally {
          await runner?.release();
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

  /** The due notifications (or the one `again`), oldest first, locked for this transaction. */
  private async claim(
    db: EntityManager,
    now: number,
    again: string | null,
    limit: number,
  ): Promise<InboxRow[]> {
    return (await db.query(
      `SELECT id, organization_id, channel_kind, channel_id, body, attempts FROM webhook_inbox
        WHERE status = 'pending' AND next_attempt_at <= $1 AND ($2::uuid IS NULL OR id = $2)
        ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [toIso(now), again, limit],
    )) as InboxRow[];
  }

  /**
   * Takes up to a batch of due notifications and applies them in one transaction; false when
   * none is due. If the batch fails, it was rolled back whole, and each of its notifications is
   * applied again alone (what failed is then tried again later or set aside, on its own).
   */
  private async processBatch(runner: QueryRunner | undefined): Promise<boolean> {
    const now = this.clock.now();
    let rows: InboxRow[] = [];
    let outcomes: ProcessingOutcome[] = [];
    try {
      // On the drain's own connection (TypeORM's transaction keeps a runner's), or the pool's.
      await (runner?.manager ?? this.dataSource.manager).transaction(async (db) => {
        rows = await this.claim(db, now, null, this.embedded ? EMBEDDED_BATCH_SIZE : BATCH_SIZE);
        if (rows.length === 0) return;
        outcomes = await this.notifications.apply(db, rows, false);
        await this.settle(db, rows, outcomes, now);
      });
    } catch (error) {
      if (rows.length === 0) throw error;
      if (rows.length === 1) {
        await this.recover(now, rows[0], error);
      } else {
        for (const row of rows) {
          await this.processAlone(now, row, false).catch((again: unknown) =>
            this.recover(now, row, again),
          );
        }
      }
      return true;
    }
    rows.forEach((row, index) => this.report(row, outcomes[index]));
    return rows.length > 0;
  }

  /** A notification whose processing failed: at once again with savepoints if PostgreSQL refused an item, else later. */
  private async recover(now: number, row: InboxRow, error: unknown): Promise<void> {
    let failure = error;
    if (refusedContent(error)) {
      // The checks missed something PostgreSQL refuses: at once again, each item in a savepoint.
      failure = await this.processAlone(now, row, true).then(
        () => undefined,
        (again: unknown) => again,
      );
    }
    if (failure !== undefined) await this.postpone(row, now, failure);
  }

  /**
   * One notification in its own transaction, claimed again (another replica may have taken it
   * meanwhile: it applies it then). Savepoints only on the last pass: each costs two statements
   * per item, and on PostgreSQL more than 64 subtransactions that write slow every session's
   * snapshots while the transaction lasts.
   */
  private async processAlone(now: number, row: InboxRow, savepoints: boolean): Promise<void> {
    let outcome: ProcessingOutcome | undefined;
    await this.dataSource.transaction(async (db) => {
      const [claimed] = await this.claim(db, now, row.id, 1);
      if (!claimed) return;
      [outcome] = await this.notifications.apply(db, [claimed], savepoints);
      await this.settle(db, [claimed], [outcome], now);
    });
    if (outcome) this.report(row, outcome);
  }

  /** Each notification's items set aside kept, and its row marked processed (or malformed). */
  private async settle(
    db: EntityManager,
    rows: readonly InboxRow[],
    outcomes: readonly ProcessingOutcome[],
    now: number,
  ): Promise<void> {
    for (const [index, row] of rows.entries()) {
      await this.keepSetAside(db, row, outcomes[index].setAside, now);
    }
    const errors = outcomes.map(describeOutcome);
    await db.query(
      `UPDATE webhook_inbox AS w
          SET status = u.status, error = u.error, processed_at = $1, attempts = w.attempts + 1
         FROM unnest($2::uuid[], $3::text[], $4::text[]) AS u(id, status, error)
        WHERE w.id = u.id`,
      [
        toIso(now),
        rows.map((row) => row.id),
        errors.map((error) => (error === null ? 'processed' : 'malformed')),
        errors,
      ],
    );
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
        // A detail may quote what Meta sent (a field's name): stored whatever it holds.
        items.map((item) => escapeUnstorable(item.detail)),
        items.map((item) => setAsideContent(item.content)),
      ],
    );
  }
}
