import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { ChannelDeactivation, ChannelMessageSender } from '../../channels';
import { toIso as iso } from '../../common/time';
import { escapeUnstorable } from '../../common/http/input-guards';
import type { FollowUpTemplate } from '../entities/follow-up.entity';
import type { MessageType } from '../entities/delivery.entity';
import type { ChannelKind, RichMessage } from '../../channels';
import { returnedRows } from '../../database/sql';
import { sessionLockHeld } from '../../database/session-lock';
import { transactionInOneRoundTrip } from '../../database/one-round-trip';
import { DeliveryEvents } from './delivery-events';
import { DeliveryStatuses, SentMessage } from './delivery-statuses';

/**
 * A delivery that must end `cancelled` instead of being retried: its follow-up was deleted, or
 * its channel removed while it was claimed (a send now has no follow-up: only the latter).
 * The follow-up is read with a scalar subquery, one primary-key lookup per row: PostgreSQL turns
 * an `OR EXISTS (...)` into a hashed subplan that reads the whole follow_ups table on every
 * statement (every claim, every outcome), which cost 5 to 40 ms per claim with 10,000 follow-ups.
 */
const CANCELLED = `(d.cancel_requested OR COALESCE((SELECT f.deleted_at IS NOT NULL FROM follow_ups f
                     WHERE f.id = d.follow_up_id), false))`;
/** A delivery that must not be called now: cancelled as above, or its follow-up paused. */
const HELD = `(d.cancel_requested OR COALESCE((SELECT f.deleted_at IS NOT NULL OR f.status = 'paused'
                FROM follow_ups f WHERE f.id = d.follow_up_id), false))`;

/**
 * For the rest of the transaction, plans without sequential or bitmap scans. The outbox's statements
 * touch a few rows each, found by key, in tables that grow by thousands of rows a second during a
 * burst: on statistics taken before the burst (a young database, or before autovacuum's next
 * analyze), PostgreSQL read all of `delivery_attempts`, or every entry of the lease index, on each
 * outcome write (7 ms at 100,000 deliveries, growing with the table).
 */
const SCANS_OFF = ['enable_seqscan', 'enable_bitmapscan'];
/** For `SELECT` in a transaction of separate statements. */
const INDEX_PLANS = SCANS_OFF.map((setting) => `set_config('${setting}', 'off', true)`).join(', ');
/** As `SET LOCAL`s, for a transaction sent in one round trip. */
const INDEX_PLAN_SETTINGS = SCANS_OFF.map((setting) => `${setting} = off`);

/**
 * Claims the deliveries that `ids` (a query of one uuid column) names, and logs their attempts in
 * the same statement: a claim is an attempt begun. $2 owner, $3 lease (ms), $4 now, $5 heartbeat
 * time-out (ms).
 */
const claimStatement = (ids: string) => `WITH ids AS (${ids}),
  claimed AS (
    UPDATE deliveries d
       SET status = 'sending', lease_owner = $2,
           lease_expires_at = clock_timestamp() + ${interval('$3')},
           attempts = d.attempts + 1, updated_at = $4
      FROM ids WHERE d.id = ids.id
       -- Checked again here, where the claim is made: the process may have stalled since.
       AND ${beatsFreshly('$2', '$5')}
 RETURNING d.id, d.organization_id, d.follow_up_id, d.channel_id, d.channel_kind,
           d.occurrence_at, d.phone, d.attempts, d.message_text, d.template,
           d.template_required, d.content),
  logged AS (
    INSERT INTO delivery_attempts (delivery_id, attempt, organization_id, process_id, started_at)
    SELECT id, attempts, organization_id, $2, $4 FROM claimed)
  SELECT c.id, c.organization_id, c.follow_up_id, c.channel_id, c.channel_kind,
         c.occurrence_at, c.phone, c.attempts, c.message_text, c.template_required,
         c.content, COALESCE(c.template, f.template) AS template,
         COALESCE(f.prompt, '') AS prompt, COALESCE(f.title, '') AS title, f.description
    FROM claimed c LEFT JOIN follow_ups f ON f.id = c.follow_up_id`;

/** A delivery claimed by this process, with what it takes to send it. */
export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  /** Null for a message sent now: `messageText` or `template` is its message. */
  followUpId: string | null;
  channelId: string;
  channelKind: ChannelKind;
  messageText: string | null;
  occurrenceAt: number;
  phone: string;
  /** Counting this one: the number of this attempt in delivery_attempts. */
  attempts: number;
  prompt: string;
  title: string;
  description: string | null;
  /** The follow-up's template, for a recipient outside the 24-hour window. */
  template: FollowUpTemplate | null;
  /** Meta refused text for it (131047): only the template may go now. */
  templateRequired: boolean;
  /** A send now's rich message (a kind's own: media, interactive, quick replies…), or null. */
  content: RichMessage | null;
}

/** One claim of a delivery: a process can hold the same row again, under a later attempt. */
export interface ClaimRef {
  id: string;
  attempt: number;
}

/**
 * In-memory key of a claim, by delivery and attempt: after a take-over a process may claim the same
 * row again while its old call is still in flight, and the two must not be confused.
 */
export const claimKey = (claim: ClaimRef): string => `${claim.id}/${claim.attempt}`;

/**
 * What became of one claimed delivery (its attempt number `attempt`); `at` is when it was known
 * (sent_at for a send).
 */
export type DeliveryOutcome = { id: string; attempt: number; at: number } & (
  | {
      status: 'sent';
      providerMessageId: string | null;
      messageType: MessageType;
      /**
       * When the call that sent it started: Meta dates the message between then and `at`, and a
       * Messenger watermark (Meta's time of the last message delivered or read) is compared
       * with it. `at`, the answer's time, is later than the watermark of the message itself.
       */
      sentAt: number;
    }
  | {
      status: 'pending';
      retryAt: number;
      errorCode: string;
      errorMessage: string;
      /** Meta refused text outside the window (131047): the next attempt sends the template. */
      templateRequired?: boolean;
    }
  | { status: 'failed'; errorCode: string; errorMessage: string }
  /** Not sent, and never will be: the recipient opted out. */
  | { status: 'skipped'; errorCode: string; errorMessage: string }
);

/** Seconds, as PostgreSQL's make_interval takes them, from a parameter in milliseconds. */
const interval = (parameter: string) =>
  `make_interval(secs => ${parameter}::double precision / 1000)`;

/**
 * The process `owner` beat within half a heartbeat time-out (database clock): nobody can judge it
 * dead for at least another half time-out, so what it claims or starts calling now stays its own.
 * A process that stalled or was cut off, or whose row was pruned, must beat (re-register) first.
 */
const beatsFreshly = (owner: string, timeoutMs: string) =>
  `EXISTS (SELECT 1 FROM scheduler_processes me WHERE me.id = ${owner}
             AND me.beaten_at > clock_timestamp() - ${interval(timeoutMs)} / 2)`;

export interface ClaimOptions {
  owner: string;
  /** DELIVERY_HEARTBEAT_TIMEOUT_MS: the claimant's own heartbeat must be fresh. */
  heartbeatTimeoutMs: number;
  now: number;
  limit: number;
  leaseMs: number;
  /** Per channel and second, across replicas; 0 = unlimited. */
  ratePerSecond: number;
}

export interface HeartbeatOptions {
  /** The process id, as written in lease_owner. */
  owner: string;
  host: string;
  pid: number;
  leaseMs: number;
  /** DELIVERY_HEARTBEAT_TIMEOUT_MS */
  timeoutMs: number;
}

interface Candidate {
  id: string;
  channel_id: string;
  organization_id: string;
}

interface ClaimRow {
  id: string;
  organization_id: string;
  follow_up_id: string | null;
  channel_id: string;
  channel_kind: ChannelKind;
  message_text: string | null;
  occurrence_at: Date;
  phone: string;
  attempts: number;
  prompt: string;
  title: string;
  description: string | null;
  template: FollowUpTemplate | null;
  template_required: boolean;
  content: RichMessage | null;
}

/**
 * The outbox's SQL. Every statement that changes a claimed row checks the lease owner, so a process
 * whose lease ran out cannot overwrite the outcome of the process that took the row over.
 *
 * Statements about a list of claims also name their ids as `d.id = ANY($n::uuid[])`: PostgreSQL
 * knows the length of an array parameter, not of a jsonb record set (it assumes 100 rows), and on a
 * table that has just grown (a burst, before autovacuum analyzes it) it otherwise joins the set
 * against a sequential scan of every delivery, once per claim and per outcome write.
 */
@Injectable()
export class DeliveryOutbox implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly channels: ChannelMessageSender,
    private readonly events: DeliveryEvents,
    private readonly statuses: DeliveryStatuses,
  ) {}

  onModuleInit(): void {
    this.channels.onDeactivated((db, deactivation) =>
      this.failPendingOfDeactivatedChannel(db, deactivation),
    );
  }

  /**
   * Claims due pending deliveries (SKIP LOCKED: replicas take disjoint rows), skipping paused
   * follow-ups and channels that have used up this second's budget, and holding each channel to
   * its budget. Leases and rate windows run on the database's clock, which all replicas share.
   */
  async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    const rows =
      options.ratePerSecond > 0
        ? await this.claimWithinRateLimit(options)
        : await this.claimAny(options);
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      followUpId: row.follow_up_id,
      channelId: row.channel_id,
      channelKind: row.channel_kind,
      messageText: row.message_text,
      occurrenceAt: new Date(row.occurrence_at).getTime(),
      phone: row.phone,
      attempts: Number(row.attempts),
      prompt: row.prompt,
      title: row.title,
      description: row.description,
      template: row.template,
      templateRequired: row.template_required,
      content: row.content,
    }));
  }

  /**
   * Without a rate limit the claim is one statement, sent with its transaction's BEGIN, plan
   * settings and COMMIT in one round trip: the claim is on every sender's path.
   */
  private async claimAny(options: ClaimOptions): Promise<ClaimRow[]> {
    const [rows] = await transactionInOneRoundTrip(
      this.dataSource,
      [
        {
          sql: claimStatement(
            `SELECT d.id FROM deliveries d
              WHERE d.status = 'pending' AND d.next_attempt_at <= $4 AND ${beatsFreshly('$2', '$5')}
                AND NOT ${HELD}
              ORDER BY d.next_attempt_at
              LIMIT $1
              FOR UPDATE OF d SKIP LOCKED`,
          ),
          params: [
            options.limit,
            options.owner,
            options.leaseMs,
            iso(options.now),
            options.heartbeatTimeoutMs,
          ],
        },
      ],
      INDEX_PLAN_SETTINGS,
      undefined,
      true,
    );
    return rows as ClaimRow[];
  }

  /** With a rate limit: the candidates, each channel's share of this second, then the claim. */
  private async claimWithinRateLimit(options: ClaimOptions): Promise<ClaimRow[]> {
    return this.dataSource.transaction(async (db) => {
      // The claim walks the queue index in order and stops at `limit` (INDEX_PLANS): otherwise, on
      // a table that has just grown, the planner read, checked and sorted every due delivery.
      const [{ window }]: { window: string }[] = await db.query(
        `SELECT floor(extract(epoch FROM clock_timestamp()))::bigint AS window, ${INDEX_PLANS}`,
      );
      const candidates: Candidate[] = await db.query(
        `SELECT d.id, d.channel_id, d.organization_id FROM deliveries d
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND ${beatsFreshly('$5', '$6')}
            AND NOT ${HELD}
            AND NOT EXISTS (
                  SELECT 1 FROM channel_send_windows w
                   WHERE w.channel_id = d.channel_id AND w.window_start = $4 AND w.sent >= $3)
          ORDER BY d.next_attempt_at
          LIMIT $2
          FOR UPDATE OF d SKIP LOCKED`,
        [
          iso(options.now),
          options.limit,
          options.ratePerSecond,
          window,
          options.owner,
          options.heartbeatTimeoutMs,
        ],
      );
      if (candidates.length === 0) return [];
      const granted = await this.withinRateLimit(db, candidates, options.ratePerSecond, window);
      if (granted.length === 0) return [];
      return db.query(claimStatement('SELECT unnest($1::uuid[]) AS id'), [
        granted,
        options.owner,
        options.leaseMs,
        iso(options.now),
        options.heartbeatTimeoutMs,
      ]) as Promise<ClaimRow[]>;
    });
  }

  /**
   * Takes each channel's share of this second's budget. The window rows stay locked until the
   * claim commits, so replicas take turns per channel; channels are locked in id order so that
   * two replicas can never wait on each other.
   */
  private async withinRateLimit(
    db: EntityManager,
    candidates: Candidate[],
    ratePerSecond: number,
    window: string,
  ): Promise<string[]> {
    const byChannel = new Map<string, { organizationId: string; ids: string[] }>();
    for (const candidate of candidates) {
      const entry = byChannel.get(candidate.channel_id) ?? {
        organizationId: candidate.organization_id,
        ids: [],
      };
      entry.ids.push(candidate.id);
      byChannel.set(candidate.channel_id, entry);
    }
    const granted: string[] = [];
    for (const channelId of [...byChannel.keys()].sort()) {
      const { organizationId, ids } = byChannel.get(channelId) as {
        organizationId: string;
        ids: string[];
      };
      await db.query(
        `INSERT INTO channel_send_windows (organization_id, channel_id, window_start, sent)
         VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING`,
        [organizationId, channelId, window],
      );
      const [{ sent }]: { sent: number }[] = await db.query(
        'SELECT sent FROM channel_send_windows WHERE channel_id = $1 AND window_start = $2 FOR UPDATE',
        [channelId, window],
      );
      const take = Math.min(Math.max(0, ratePerSecond - Number(sent)), ids.length);
      if (take > 0) {
        await db.query(
          'UPDATE channel_send_windows SET sent = sent + $3 WHERE channel_id = $1 AND window_start = $2',
          [channelId, window, take],
        );
      }
      // The rest stay pending, unlocked at commit, for the next second.
      granted.push(...ids.slice(0, take));
    }
    return granted;
  }

  /**
   * Writes the outcomes of claimed deliveries, and of their attempts, in one statement. A delivery
   * is only written while this process still holds it; its attempt is written whatever happened
   * since (an outcome that arrives after a take-over still explains the repeat). A retry of a
   * deleted follow-up's delivery is cancelled instead. Both are matched by attempt number: the late
   * outcome of a claim that was taken over is never written over a later claim of the same row.
   * Returns the ids that were no longer held.
   */
  async record(owner: string, now: number, outcomes: DeliveryOutcome[]): Promise<string[]> {
    if (outcomes.length === 0) return [];
    const rows = outcomes.map((outcome) => ({
      id: outcome.id,
      attempt: outcome.attempt,
      status: outcome.status,
      finished_at: iso(outcome.at),
      // Text from Meta or from a composer, stored as is unless PostgreSQL would refuse it (a NUL, a
      // lone surrogate): one unstorable outcome must not hold back the whole group's write.
      wa_message_id:
        outcome.status === 'sent' && outcome.providerMessageId !== null
          ? escapeUnstorable(outcome.providerMessageId)
          : null,
      sent_at: outcome.status === 'sent' ? iso(outcome.sentAt) : null,
      next_attempt_at: outcome.status === 'pending' ? iso(outcome.retryAt) : null,
      error_code: outcome.status === 'sent' ? null : outcome.errorCode,
      error_message: outcome.status === 'sent' ? null : escapeUnstorable(outcome.errorMessage),
      message_type: outcome.status === 'sent' ? outcome.messageType : null,
      template_required: outcome.status === 'pending' && outcome.templateRequired === true,
    }));
    const sql = `WITH v AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, attempt integer, status text,
                finished_at timestamptz, wa_message_id text, sent_at timestamptz,
                next_attempt_at timestamptz, error_code text, error_message text,
                message_type text, template_required boolean)),
       delivery AS (
         UPDATE deliveries d
            SET status = CASE WHEN v.status = 'pending' AND ${CANCELLED} THEN 'cancelled'
                              ELSE v.status END,
                wa_message_id = COALESCE(v.wa_message_id, d.wa_message_id),
                sent_at = COALESCE(v.sent_at, d.sent_at),
                sent_by = CASE WHEN v.status = 'sent' THEN $2 ELSE d.sent_by END,
                next_attempt_at = COALESCE(v.next_attempt_at, d.next_attempt_at),
                message_type = CASE WHEN v.template_required THEN 'template'
                                    ELSE COALESCE(v.message_type, d.message_type) END,
                template_required = d.template_required OR v.template_required,
                last_error_code = v.error_code,
                last_error_message = v.error_message,
                lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
           FROM v
          WHERE d.id = v.id AND d.id = ANY($4::uuid[]) AND d.lease_owner = $2 AND d.status = 'sending'
            -- This attempt's claim, not a later claim of the same row by this same process.
            AND d.attempts = v.attempt
      RETURNING d.id, d.status, d.organization_id, d.channel_id, d.channel_kind, d.wa_message_id,
                d.phone, d.sent_at),
       attempt AS (
         UPDATE delivery_attempts a
            SET finished_at = v.finished_at,
                outcome = CASE WHEN v.status = 'sent' THEN 'sent' ELSE 'failed' END,
                wa_message_id = v.wa_message_id, error_code = v.error_code, error_message = v.error_message
           FROM v
          WHERE a.delivery_id = v.id AND a.delivery_id = ANY($4::uuid[]) AND a.attempt = v.attempt
            AND a.process_id = $2)
       SELECT v.id, w.id IS NOT NULL AS held, w.status, w.organization_id, w.channel_id,
              w.channel_kind, w.wa_message_id, w.phone, w.sent_at
         FROM v LEFT JOIN delivery w ON w.id = v.id`;
    const parameters = [JSON.stringify(rows), owner, iso(now), rows.map((row) => row.id)];
    type Written = {
      id: string;
      held: boolean;
      status: string | null;
      organization_id: string | null;
      channel_id: string | null;
      channel_kind: ChannelKind | null;
      wa_message_id: string | null;
      phone: string | null;
      sent_at: Date | string | null;
    }[];
    const sent = (rows: Written): SentMessage[] =>
      rows.flatMap((row) =>
        row.held &&
        row.status === 'sent' &&
        row.wa_message_id &&
        row.channel_id &&
        row.channel_kind &&
        row.phone &&
        row.sent_at
          ? [
              {
                organizationId: row.organization_id as string,
                channelId: row.channel_id,
                kind: row.channel_kind,
                providerMessageId: row.wa_message_id,
                recipient: row.phone,
                sentAt: new Date(row.sent_at).getTime(),
              },
            ]
          : [],
      );
    // One transaction: the outcomes; the locks on their Meta ids, held to the commit, so that a
    // status being stored for one of them either committed first (and is read by catchUp) or
    // waits for this commit (and then finds the id itself); the agent events of settled outcomes.
    const written: Written = await this.dataSource.transaction(async (db) => {
      await db.query(`SELECT ${INDEX_PLANS}`);
      const result = (await db.query(sql, parameters)) as Written;
      await this.statuses.lockSent(db, sent(result));
      const settled = new Set(outcomes.filter((o) => o.status !== 'pending').map((o) => o.id));
      await this.events.tell(
        db,
        result.filter((row) => row.held && settled.has(row.id)).map((row) => row.id),
      );
      await this.statuses.catchUp(db, sent(result));
      return result;
    });
    return written.filter((row) => !row.held).map((row) => row.id);
  }

  /**
   * Right before their calls to Meta: the claims this process still holds (owner, `sending`, same
   * attempt), while its own heartbeat is fresh, whose follow-up is neither deleted nor paused. For
   * any other claim the call must not be made: the row was taken over while the message was being
   * written (a stall, an LLM compose), or the follow-up was deleted or paused after the claim. One
   * statement for the sends that reach their call together (a claimed batch's messages are written
   * together).
   *
   * Each call gets a whole lease, less a second at most: a lease (re)started within the last second
   * (the claim, a beat) is only locked until the statement commits, so a take-over waits for it and
   * then sees a fresh heartbeat; an older one restarts. Locking writes no new row version, where
   * restarting every lease wrote one per send, with an entry in each of the table's indexes.
   */
  async startCalls(
    owner: string,
    claims: readonly ClaimRef[],
    options: { now: number; leaseMs: number; heartbeatTimeoutMs: number },
  ): Promise<ClaimRef[]> {
    if (claims.length === 0) return [];
    const [rows] = await transactionInOneRoundTrip(
      this.dataSource,
      [
        {
          sql: `WITH held AS (
           SELECT d.id, d.attempts,
                  d.lease_expires_at < clock_timestamp() + ${interval('$3')} - interval '1 second'
                    AS restart
             FROM deliveries d
             JOIN jsonb_to_recordset($1::jsonb) AS c(id uuid, attempt integer)
               ON d.id = c.id AND d.attempts = c.attempt
            WHERE d.id = ANY($6::uuid[]) AND d.lease_owner = $2 AND d.status = 'sending'
              AND NOT ${HELD}
              AND ${beatsFreshly('$2', '$5')}
              FOR NO KEY UPDATE OF d),
         restarted AS (
           UPDATE deliveries d
              SET lease_expires_at = clock_timestamp() + ${interval('$3')}, updated_at = $4
             FROM held WHERE d.id = held.id AND held.restart)
         SELECT id, attempts AS attempt FROM held`,
          params: [
            JSON.stringify(claims.map(({ id, attempt }) => ({ id, attempt }))),
            owner,
            options.leaseMs,
            iso(options.now),
            options.heartbeatTimeoutMs,
            claims.map((claim) => claim.id),
          ],
        },
      ],
      INDEX_PLAN_SETTINGS,
      undefined,
      true,
    );
    return (rows as ClaimRef[]).map((row) => ({ id: row.id, attempt: Number(row.attempt) }));
  }

  /**
   * Meta refused a channel's token and Channels deactivated it, in this transaction: its open
   * deliveries fail with it, except those another process is sending right now (they record their
   * own outcome).
   */
  private async failPendingOfDeactivatedChannel(
    db: EntityManager,
    deactivation: ChannelDeactivation,
  ): Promise<void> {
    await db.query(
      `UPDATE deliveries SET status = 'failed', last_error_code = 'channel_inactive', last_error_message = $2,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
        WHERE channel_id = $1 AND status = 'pending'`,
      [deactivation.channelId, deactivation.reason, iso(deactivation.at)],
    );
  }

  /**
   * Beats this process's heartbeat and extends the leases of the claims it holds; returns the
   * claims it still holds (any other was taken over while it could not reach the database). A gap of
   * a whole heartbeat time-out since its previous beat restarts `beating_since`: a process that was
   * cut off must watch the others again before it may judge them dead.
   *
   * A beat never waits for a row lock: it extends only the leases it can lock at once (SKIP
   * LOCKED). A row locked now is being written by its outcome, its check before the call (which
   * restarts the lease itself) or a take-over; it counts as held if this statement's snapshot says
   * so, and the next beat tells. Waiting, a beat locking many rows in its own order deadlocked with
   * the outcome writes locking theirs in another.
   */
  async beat(process: HeartbeatOptions, held: ClaimRef[]): Promise<ClaimRef[]> {
    const rows = returnedRows<ClaimRef>(
      await this.dataSource.query(
        `WITH me AS (
           INSERT INTO scheduler_processes AS p (id, host, pid, started_at, beaten_at, beating_since)
           VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp(), clock_timestamp())
           ON CONFLICT (id) DO UPDATE
              SET beaten_at = clock_timestamp(),
                  beating_since = CASE WHEN p.beaten_at > clock_timestamp() - ${interval('$6')}
                                       THEN p.beating_since ELSE clock_timestamp() END
           RETURNING p.id),
         c AS (SELECT * FROM jsonb_to_recordset($4::jsonb) AS c(id uuid, attempt integer)),
         free AS (
           SELECT d.id FROM deliveries d JOIN c ON d.id = c.id AND d.attempts = c.attempt
            WHERE d.id = ANY($7::uuid[]) AND d.lease_owner = $1 AND d.status = 'sending'
              FOR NO KEY UPDATE OF d SKIP LOCKED),
         extended AS (
           UPDATE deliveries d SET lease_expires_at = clock_timestamp() + ${interval('$5')}
             FROM free WHERE d.id = free.id AND EXISTS (SELECT 1 FROM me))
         -- Held, as this statement's snapshot sees them (locked rows included).
         SELECT d.id, d.attempts AS attempt
           FROM deliveries d JOIN c ON d.id = c.id AND d.attempts = c.attempt
          WHERE d.id = ANY($7::uuid[]) AND d.lease_owner = $1 AND d.status = 'sending'`,
        [
          process.owner,
          process.host,
          process.pid,
          JSON.stringify(held),
          process.leaseMs,
          process.timeoutMs,
          held.map((claim) => claim.id),
        ],
      ),
    );
    return rows.map((row) => ({ id: row.id, attempt: Number(row.attempt) }));
  }

  /** A graceful stop: this process no longer beats, and holds nothing. */
  async unregister(owner: string): Promise<void> {
    await this.dataSource.query('DELETE FROM scheduler_processes WHERE id = $1', [owner]);
  }

  /**
   * Takes over the claims of dead processes and claims whose lease ran out (a stalled send, or an
   * owner without a heartbeat row: a version before heartbeats, still running during a rolling
   * upgrade, or a process that stopped holding something): back to `pending` (or `failed` with
   * `lease_expired` after the last attempt, `cancelled` for a deleted follow-up), ahead of the
   * fresh rows due at the same time. Their attempt is logged as `unknown`: the call may have
   * reached Meta.
   *
   * Who may judge (after a database outage every process looks dead for a moment, and the living
   * must get the time to beat again):
   * - a reaper that has beaten without a gap for a whole time-out judges any process whose last
   *   beat is a time-out old, and any expired lease;
   * - a live reaper whose own session lock has never been lost since it started
   *   (`sessionUnbroken`), on a database up for a whole time-out, judges a process whose last beat
   *   is a time-out old and whose session lock is gone: its connection closed while the reaper's
   *   did not, so it was killed. A process that is only cut off keeps its session until TCP gives
   *   up on it; a cut that closed every session broke the reaper's too; a restarted database
   *   gives everyone a time-out to come back. This is what takes over during a crash loop, when
   *   no process lives a whole time-out.
   * All ages are on the database's clock.
   */
  async reapAbandoned(
    reaper: string,
    now: number,
    maxAttempts: number,
    judge: { timeoutMs: number; sessionUnbroken: boolean },
  ): Promise<number> {
    const rows: { id: string }[] = await this.dataSource.query(
      `WITH me AS (
         SELECT me.beating_since <= clock_timestamp() - ${interval('$4')} AS watched,
                $5 AND pg_postmaster_start_time() <= clock_timestamp() - ${interval('$4')} AS settled
           FROM scheduler_processes me
          WHERE me.id = $3 AND me.beaten_at > clock_timestamp() - ${interval('$4')}),
       taken AS (
         UPDATE deliveries d
            SET status = CASE WHEN ${CANCELLED} THEN 'cancelled'
                              WHEN d.attempts >= $2 THEN 'failed' ELSE 'pending' END,
                last_error_code = CASE WHEN NOT ${CANCELLED} AND d.attempts >= $2
                                       THEN 'lease_expired' ELSE d.last_error_code END,
                last_error_message = CASE WHEN NOT ${CANCELLED} AND d.attempts >= $2
                  THEN 'The process sending this message stopped before recording the outcome.'
                  ELSE d.last_error_message END,
                -- It was due when claimed: a millisecond earlier puts it ahead of the rows due at
                -- the same time (a large occurrence), not behind thousands of them.
                next_attempt_at = d.next_attempt_at - interval '1 millisecond',
                lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
           FROM me
          WHERE d.status = 'sending'
            AND ((me.watched
                  AND (d.lease_expires_at < clock_timestamp()
                       OR EXISTS (SELECT 1 FROM scheduler_processes p
                                   WHERE p.id = d.lease_owner
                                     AND p.beaten_at <= clock_timestamp() - ${interval('$4')})))
              OR (me.settled
                  AND EXISTS (SELECT 1 FROM scheduler_processes p
                               WHERE p.id = d.lease_owner
                                 AND p.beaten_at <= clock_timestamp() - ${interval('$4')}
                                 AND NOT ${sessionLockHeld('p.id')})))
      RETURNING d.id, d.attempts),
       attempt AS (
         UPDATE delivery_attempts a
            SET outcome = 'unknown', finished_at = $1, error_code = 'outcome_unknown',
                error_message = 'The process sending this message stopped or lost the database before recording the outcome; it may have been sent.'
           FROM taken
          WHERE a.delivery_id = taken.id AND a.attempt = taken.attempts AND a.outcome IS NULL)
       SELECT id FROM taken`,
      [iso(now), maxAttempts, reaper, judge.timeoutMs, judge.sessionUnbroken],
    );
    return rows.length;
  }

  /**
   * On shutdown: gives back what this process claimed but never called Meta for (the attempt is
   * not counted, and its log row goes); a deleted follow-up's delivery is cancelled instead.
   */
  async release(owner: string, claims: ClaimRef[], now: number): Promise<void> {
    if (claims.length === 0) return;
    await this.dataSource.query(
      `WITH released AS (
         UPDATE deliveries d
            SET status = CASE WHEN ${CANCELLED} THEN 'cancelled' ELSE 'pending' END,
                attempts = GREATEST(d.attempts - 1, 0), lease_owner = NULL,
                lease_expires_at = NULL, next_attempt_at = $3, updated_at = $3
           FROM jsonb_to_recordset($2::jsonb) AS c(id uuid, attempt integer)
          WHERE d.id = c.id AND d.id = ANY($4::uuid[]) AND d.attempts = c.attempt
            AND d.lease_owner = $1 AND d.status = 'sending'
      RETURNING d.id, d.attempts + 1 AS attempt)
       DELETE FROM delivery_attempts a USING released
        WHERE a.delivery_id = released.id AND a.attempt = released.attempt AND a.process_id = $1`,
      [owner, JSON.stringify(claims), iso(now), claims.map((claim) => claim.id)],
    );
  }

  /**
   * Cancels pending deliveries of deleted follow-ups that a retry written concurrently with the
   * DELETE left behind (the claim never takes them; this only tidies their status).
   */
  async cancelDeletedFollowUpsDeliveries(now: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE deliveries d SET status = 'cancelled', updated_at = $1
         FROM follow_ups f
        WHERE f.id = d.follow_up_id AND d.status = 'pending' AND f.deleted_at IS NOT NULL`,
      [iso(now)],
    );
  }

  /** Forgets processes that have been dead for a while and hold nothing. */
  async pruneProcesses(timeoutMs: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM scheduler_processes p
        WHERE p.beaten_at < clock_timestamp() - ${interval('$1')} * 10
          AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.status = 'sending' AND d.lease_owner = p.id)`,
      [timeoutMs],
    );
  }

  /** Forgets send windows older than a minute. */
  async pruneSendWindows(): Promise<void> {
    await this.dataSource.query(
      'DELETE FROM channel_send_windows WHERE window_start < floor(extract(epoch FROM clock_timestamp()))::bigint - 60',
    );
  }
}
