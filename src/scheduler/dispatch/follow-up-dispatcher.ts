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

  /** Dispatches one batch; returns how many follow-ups it took (a full batch means: call again). */
  async dispatchBatch(now: number, batchSize: number): Promise<number> {
    const dueAt: number[] = [];
    const dispatched = await this.dataSource.transaction(async (db) => {
      const due: DueFollowUp[] = await db.query(
        `SELECT id, frequency, time_zone, anchor_at, next_run_at FROM follow_ups
          WHERE status = 'active' AND next_run_at <= $1
          ORDER BY next_run_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED`,
        [iso(now), batchSize],
      );
      if (due.length === 0) return 0;
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
      await db.query(
        `INSERT INTO deliveries (organization_id, follow_up_id, channel_id, channel_kind, occurrence_at,
                                 phone, status, attempts, next_attempt_at, created_at, updated_at)
         SELECT f.organization_id, f.id, f.channel_id, f.channel_kind, f.next_run_at, phone.value,
                'pending', 0, $2, $2, $2
           FROM follow_ups f
          CROSS JOIN LATERAL jsonb_array_elements_text(f.client_phone_numbers) AS phone(value)
          WHERE f.id IN (SELECT value::uuid FROM jsonb_array_elements_text($1::jsonb))
         ON CONFLICT (follow_up_id, occurrence_at, phone) DO NOTHING`,
        [ids, iso(now)],
      );
      await db.query(
        `UPDATE follow_ups f
            SET last_run_at = f.next_run_at, next_run_at = v.next_run_at, status = v.status, updated_at = $2
           FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, next_run_at timestamptz, status text)
          WHERE f.id = v.id`,
        [JSON.stringify(advanced), iso(now)],
      );
      return due.length;
    });
    // Once committed: the deliveries are queued now.
    const queuedAt = Date.now();
    for (const at of dueAt) this.metrics.dispatchLag.observe(Math.max(0, queuedAt - at) / 1000);
    return dispatched;
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
