import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';

/** A key is remembered this long after its first request (Stripe's 24 hours). */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A request that holds its key longer than this (its process died) may be taken over. */
const IN_PROGRESS_MS = 2 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'reused' }
  | { kind: 'in_progress' };

interface KeyRow {
  fingerprint: string;
  response_status: number | null;
  response_body: string | null;
}

/**
 * The idempotency keys of every organization, in the database so that every replica sees the same
 * ones. A request claims its key with one statement: it is new, or its 24 hours are over, or the
 * request that held it stopped without answering; else the key's row says what to do.
 */
@Injectable()
export class IdempotencyKeys {
  private prunedAt = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  async claim(organizationId: string, key: string, fingerprint: string): Promise<Claim> {
    const now = this.clock.now();
    await this.pruneNow(now);
    const claimed = (await this.db.query(
      `INSERT INTO idempotency_keys (organization_id, key, fingerprint, created_at, locked_until)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at,
             locked_until = EXCLUDED.locked_until, response_status = NULL, response_body = NULL
         WHERE idempotency_keys.created_at < $6
            OR (idempotency_keys.response_status IS NULL
                AND idempotency_keys.locked_until < $4
                AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
       RETURNING key`,
      [
        organizationId,
        key,
        fingerprint,
        new Date(now),
        new Date(now + IN_PROGRESS_MS),
        new Date(now - KEY_LIFETIME_MS),
      ],
    )) as unknown[];
    if (claimed.length > 0) return { kind: 'claimed' };
    const [row] = (await this.db.query(
      'SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE organization_id = $1 AND key = $2',
      [organizationId, key],
    )) as KeyRow[];
    // Gone between the two statements (pruned): the next try claims it.
    if (!row) return { kind: 'in_progress' };
    if (row.fingerprint !== fingerprint) return { kind: 'reused' };
    if (row.response_status !== null && row.response_body !== null) {
      return { kind: 'replay', status: row.response_status, body: row.response_body };
    }
    return { kind: 'in_progress' };
  }

  /** The request succeeded: its answer is what the key replays from now on. */
  async complete(organizationId: string, key: string, status: number, body: string): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET response_status = $3, response_body = $4, locked_until = NULL
       WHERE organization_id = $1 AND key = $2`,
      [organizationId, key, status, body],
    );
  }

  /** The request failed: the key is free again, so a retry runs it anew. */
  async release(organizationId: string, key: string): Promise<void> {
    await this.db.query(
      'DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2 AND response_status IS NULL',
      [organizationId, key],
    );
  }

  /** At most once an hour per process: keys past their 24 hours go. */
  private async pruneNow(now: number): Promise<void> {
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    await this.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [
      new Date(now - KEY_LIFETIME_MS),
    ]);
  }
}
