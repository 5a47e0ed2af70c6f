import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Metrics } from '../metrics';

/** The outbox seen from outside: read from the deliveries table on each metrics refresh. */
@Injectable()
export class SchedulerMetrics implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge(
      'agentline_outbox_deliveries',
      'Deliveries waiting in the outbox: pending (due now or later, retries included) and sending (claimed by a process, being sent). The whole database, not this process: do not sum across replicas.',
      ['status', 'due'],
      async (gauge) => {
        const rows = (await this.dataSource.query(
          `SELECT status, next_attempt_at <= now() AS due, count(*) AS count
             FROM deliveries WHERE status IN ('pending', 'sending') GROUP BY 1, 2`,
        )) as { status: string; due: boolean; count: string }[];
        for (const status of ['pending', 'sending']) {
          for (const due of [true, false]) {
            const row = rows.find((r) => r.status === status && r.due === due);
            gauge.set({ status, due: String(due) }, Number(row?.count ?? 0));
          }
        }
      },
    );
  }
}
