import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { toIso as iso } from '../../common/time';
import { Metrics } from '../../metrics';
import { loadStoredSchedule } from '../schedule/schedule.parser';

interface DueFollowUp {
  id: string;
  frequency: string;
  time_zone: string;
  anchor_at: Date;
  next_run_at: Date;
  /** How many numbers it has. */
  numbers: number | string;
}

/** How much one dispatch transaction takes on. */
export interface DispatchLimits {
  followUps: number;
  /** Numbers (deliveries) per batch, one follow-up at least. */
  numbers: number;
  /** Rows per INSERT statement. */
  rowsPerStatement: number;
  /** Between two statements of a batch (a turn of the event loop, on the embedded database). */
  between?: () => Promise<void>;
}

/**
 * Turns due follow-ups into delivery rows. One transaction per batch claims due follow-ups with
 * FOR UPDATE SKIP LOCKED (replicas take disjoint rows), inserts one delivery per number under the
 * unique key (follow_up_id, occurrence_at, phone), and advances next_run_at past `now`: missed
 * occurrences collapse into the one being sent (CONTRACT.md: coalesced after downtime).
 */
@Injectable()
export class FollowUpDispatcher {
  private readonly logger = new Logger(FollowUpDispatcher.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Dispatches one batch; `more` says a limit cut it short (call again). A batch takes due
   * follow-ups up to `limits.followUps`, and stops before the one that would take it over
   * `limits.numbers` numbers (one follow-up at least, whatever its size): delivery starts with the
   * first committed batch, so a few large follow-ups due together start going out after the
   * first one's rows are written, not after all of them.
   */
  async dispatchBatch(now: number, limits: DispatchLimits): Promise<{ more: boolean }> {
    const dueAt: number[] = [];
    const more = await this.dataSource.transaction(async (db) => {
      const locked: DueFollowUp[] = await db.query(
        `SELECT id, frequency, time_zone, anchor_at, next_run_at,
                jsonb_array_length(client_phone_numbers) AS numbers
           FROM follow_ups
          WHERE status = 'active' AND next_run_at <= $1
          ORDER BY next_run_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED`,
        [iso(now), limits.followUps],
      );
      if (locked.length === 0) return false;
      // The rest stay locked by this transaction until it commits, untouched: the next batch.
      let numbers = 0;
      const due = locked.filter((followUp, index) => {
        numbers += Number(followUp.numbers);
        return index === 0 || numbers <= limits.numbers;
      });
      dueAt.push(...due.map((followUp) => new Date(followUp.next_run_at).getTime()));

      const advanced = due.map((followUp) => {
        const next = this.nextRunAfter(followUp, now);
        return {
          id: followUp.id,
          next_run_at: next === null ? null : iso(next),
          status: next === null ? 'completed' : 'active',
        };
      });
      const ids = JSON.stringify(due.map((followUp) => followUp.id));
      // Set-based: each statement writes the numbers of every follow-up of the batch from one
      // position to another, read by index (a slice costs its own rows, not the whole list). One
      // statement on PostgreSQL; on the embedded database, slices of `rowsPerStatement` rows with
      // a turn of the event loop between them (it runs in this thread: a statement of 20,000 rows
      // held every request for seconds).
      const widest = Math.max(...due.map((followUp) => Number(followUp.numbers)));
      const slice = Math.min(widest, Math.max(1, Math.floor(limits.rowsPerStatement / due.length)));
      for (let from = 0; from < widest; from += slice) {
        if (from > 0) await limits.between?.();
        await db.query(
          `INSERT INTO deliveries (organization_id, follow_up_id, channel_id, channel_kind, occurrence_at,
                                   phone, status, attempts, next_attempt_at, created_at, updated_at)
           SELECT f.organization_id, f.id, f.channel_id, f.channel_kind, f.next_run_at,
                  f.client_phone_numbers ->> (position - 1), 'pending', 0, $2, $2, $2
             FROM follow_ups f
            CROSS JOIN LATERAL generate_series($3::int + 1,
                  LEAST($4::int, jsonb_array_length(f.client_phone_numbers))) AS position
            WHERE f.id IN (SELECT value::uuid FROM jsonb_array_elements_text($1::jsonb))
           ON CONFLICT (follow_up_id, occurrence_at, phone) DO NOTHING`,
          [ids, iso(now), from, from + slice],
        );
      }
      await db.query(
        `UPDATE follow_ups f
            SET last_run_at = f.next_run_at, next_run_at = v.next_run_at, status = v.status, updated_at = $2
           FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, next_run_at timestamptz, status text)
          WHERE f.id = v.id`,
        [JSON.stringify(advanced), iso(now)],
      );
      return locked.length === limits.followUps || due.length < locked.length;
    });
    // Once committed: the deliveries are queued now.
    const queuedAt = Date.now();
    for (const at of dueAt) this.metrics.dispatchLag.observe(Math.max(0, queuedAt - at) / 1000);
    return { more };
  }

  /** The earliest next_run_at of an active follow-up (the partial due index answers it). */
  async earliestDue(): Promise<number | null> {
    const [row]: { next: Date | null }[] = await this.dataSource.query(
      "SELECT min(next_run_at) AS next FROM follow_ups WHERE status = 'active'",
    );
    return row?.next ? new Date(row.next).getTime() : null;
  }

  private nextRunAfter(followUp: DueFollowUp, now: number): number | null {
    const occurrence = new Date(followUp.next_run_at).getTime();
    try {
      const schedule = loadStoredSchedule(
        followUp.frequency,
        followUp.time_zone,
        new Date(followUp.anchor_at).getTime(),
      );
      return schedule.nextAfter(Math.max(now, occurrence));
    } catch (error) {
      // Stored frequencies were valid when created; if a grammar change rejects one, send this
      // occurrence and stop rather than fail the whole batch.
      this.logger.error(
        { err: error, followUpId: followUp.id },
        'stored frequency no longer parses',
      );
      return null;
    }
  }
}
