import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { toIso as iso } from '../../common/time';
import { returnedRows } from '../../database/sql';

/** A delivery claimed by this process, with what it takes to send it. */
export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  followUpId: string;
  channelId: string;
  occurrenceAt: number;
  phone: string;
  attempts: number;
  prompt: string;
  title: string;
  description: string | null;
}

/** What became of one claimed delivery; `at` is when it was known (sent_at for a send). */
export type DeliveryOutcome =
  | { id: string; at: number; status: 'sent'; waMessageId: string | null }
  | {
      id: string;
      at: number;
      status: 'pending';
      retryAt: number;
      errorCode: string;
      errorMessage: string;
    }
  | { id: string; at: number; status: 'failed'; errorCode: string; errorMessage: string };

export interface ClaimOptions {
  owner: string;
  now: number;
  limit: number;
  leaseMs: number;
  /** Per channel and second, across replicas; 0 = unlimited. */
  ratePerSecond: number;
}

interface Candidate {
  id: string;
  channel_id: string;
  organization_id: string;
}

interface ClaimRow {
  id: string;
  organization_id: string;
  follow_up_id: string;
  channel_id: string;
  occurrence_at: Date;
  phone: string;
  attempts: number;
  prompt: string;
  title: string;
  description: string | null;
}

/**
 * The outbox's SQL. Every statement that changes a claimed row checks the lease owner, so a process
 * whose lease ran out cannot overwrite the outcome of the process that took the row over.
 */
@Injectable()
export class DeliveryOutbox {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Claims due pending deliveries (SKIP LOCKED: replicas take disjoint rows), skipping paused
   * follow-ups and channels that have used up this second's budget, and holding each channel to
   * its budget. Leases and rate windows run on the database's clock, which all replicas share.
   */
  async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    return this.dataSource.transaction(async (db) => {
      const [{ window }]: { window: string }[] = await db.query(
        'SELECT floor(extract(epoch FROM clock_timestamp()))::bigint AS window',
      );
      const candidates: Candidate[] = await db.query(
        `SELECT d.id, d.channel_id, d.organization_id FROM deliveries d
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1
            AND NOT EXISTS (SELECT 1 FROM follow_ups f WHERE f.id = d.follow_up_id AND f.status = 'paused')
            AND ($3 = 0 OR NOT EXISTS (
                  SELECT 1 FROM channel_send_windows w
                   WHERE w.channel_id = d.channel_id AND w.window_start = $4 AND w.sent >= $3))
          ORDER BY d.next_attempt_at
          LIMIT $2
          FOR UPDATE OF d SKIP LOCKED`,
        [iso(options.now), options.limit, options.ratePerSecond, window],
      );
      if (candidates.length === 0) return [];
      const granted =
        options.ratePerSecond > 0
          ? await this.withinRateLimit(db, candidates, options.ratePerSecond, window)
          : candidates.map((c) => c.id);
      if (granted.length === 0) return [];
      const rows = returnedRows<ClaimRow>(
        await db.query(
          `UPDATE deliveries d
              SET status = 'sending', lease_owner = $2,
                  lease_expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000),
                  attempts = d.attempts + 1, updated_at = $4
             FROM follow_ups f
            WHERE d.id IN (SELECT value::uuid FROM jsonb_array_elements_text($1::jsonb))
              AND f.id = d.follow_up_id
        RETURNING d.id, d.organization_id, d.follow_up_id, d.channel_id, d.occurrence_at, d.phone,
                  d.attempts, f.prompt, f.title, f.description`,
          [JSON.stringify(granted), options.owner, options.leaseMs, iso(options.now)],
        ),
      );
      return rows.map((row) => ({
        id: row.id,
        organizationId: row.organization_id,
        followUpId: row.follow_up_id,
        channelId: row.channel_id,
        occurrenceAt: new Date(row.occurrence_at).getTime(),
        phone: row.phone,
        attempts: Number(row.attempts),
        prompt: row.prompt,
        title: row.title,
        description: row.description,
      }));
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

  /** Writes the outcomes of claimed deliveries in one statement. */
  async record(owner: string, now: number, outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const rows = outcomes.map((outcome) => ({
      id: outcome.id,
      status: outcome.status,
      wa_message_id: outcome.status === 'sent' ? outcome.waMessageId : null,
      sent_at: outcome.status === 'sent' ? iso(outcome.at) : null,
      next_attempt_at: outcome.status === 'pending' ? iso(outcome.retryAt) : null,
      error_code: outcome.status === 'sent' ? null : outcome.errorCode,
      error_message: outcome.status === 'sent' ? null : outcome.errorMessage,
    }));
    await this.dataSource.query(
      `UPDATE deliveries d
          SET status = v.status,
              wa_message_id = COALESCE(v.wa_message_id, d.wa_message_id),
              sent_at = COALESCE(v.sent_at, d.sent_at),
              sent_by = CASE WHEN v.status = 'sent' THEN $2 ELSE d.sent_by END,
              next_attempt_at = COALESCE(v.next_attempt_at, d.next_attempt_at),
              last_error_code = v.error_code,
              last_error_message = v.error_message,
              lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
         FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, status text, wa_message_id text,
              sent_at timestamptz, next_attempt_at timestamptz, error_code text, error_message text)
        WHERE d.id = v.id AND d.lease_owner = $2 AND d.status = 'sending'`,
      [JSON.stringify(rows), owner, iso(now)],
    );
  }

  /**
   * Meta refused the channel's token: the channel goes inactive and its open deliveries fail,
   * except those another process is sending right now (they record their own outcome).
   */
  async deactivateChannel(
    channelId: string,
    rejectedToken: string,
    now: number,
    reason: string,
  ): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      // Only if the rejected token is still the channel's: a PUT may have replaced it meanwhile.
      const deactivated = returnedRows<{ id: string }>(
        await db.query(
          `UPDATE whatsapp_channels SET status = 'inactive', updated_at = $3
            WHERE id = $1 AND status = 'active' AND access_token_encrypted = $2
        RETURNING id`,
          [channelId, rejectedToken, iso(now)],
        ),
      );
      if (deactivated.length === 0) return;
      await db.query(
        `UPDATE deliveries SET status = 'failed', last_error_code = 'channel_inactive', last_error_message = $2,
                lease_owner = NULL, lease_expires_at = NULL, updated_at = $3
          WHERE channel_id = $1 AND status = 'pending'`,
        [channelId, reason, iso(now)],
      );
    });
  }

  /** Returns claims whose lease ran out (their process died or stalled) to the queue. */
  async reapExpiredLeases(now: number, maxAttempts: number): Promise<number> {
    const rows = returnedRows<{ id: string }>(
      await this.dataSource.query(
        `UPDATE deliveries
          SET status = CASE WHEN attempts >= $2 THEN 'failed' ELSE 'pending' END,
              last_error_code = CASE WHEN attempts >= $2 THEN 'lease_expired' ELSE last_error_code END,
              last_error_message = CASE WHEN attempts >= $2
                THEN 'The process sending this message stopped before recording the outcome.'
                ELSE last_error_message END,
              next_attempt_at = $1, lease_owner = NULL, lease_expires_at = NULL, updated_at = $1
        WHERE status = 'sending' AND lease_expires_at < clock_timestamp()
        RETURNING id`,
        [iso(now), maxAttempts],
      ),
    );
    return rows.length;
  }

  /** On shutdown: gives back what this process claimed but did not send (not counted as an attempt). */
  async release(owner: string, ids: string[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.dataSource.query(
      `UPDATE deliveries SET status = 'pending', attempts = GREATEST(attempts - 1, 0), lease_owner = NULL,
              lease_expires_at = NULL, next_attempt_at = $3, updated_at = $3
        WHERE id IN (SELECT value::uuid FROM jsonb_array_elements_text($2::jsonb))
          AND lease_owner = $1 AND status = 'sending'`,
      [owner, JSON.stringify(ids), iso(now)],
    );
  }

  /** Forgets send windows older than a minute. */
  async pruneSendWindows(): Promise<void> {
    await this.dataSource.query(
      'DELETE FROM channel_send_windows WHERE window_start < floor(extract(epoch FROM clock_timestamp()))::bigint - 60',
    );
  }
}
