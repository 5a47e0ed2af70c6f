import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityTarget } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Clock } from '../clock';

/** A key is remembered this long after its first request (Stripe's 24 hours). */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A request that holds its key longer than this (its process died) may be taken over. */
const IN_PROGRESS_MS = 2 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * An idempotent request whose key this request holds, for the service that creates its resource:
 * it records what it created in the same transaction (insertCreated), and when `resourceId` is
 * set, an earlier run of the same request already committed that resource and is answered again.
 */
export interface IdempotentRequest {
  organizationId: string;
  key: string;
  resourceId: string | null;
}

export type Claim =
  | { kind: 'claimed'; resourceId: string | null }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'reused' }
  | { kind: 'in_progress' };

/**
 * A request's two fingerprints. `raw`: of the body in the order it came, what every version stores
 * in `fingerprint` and compares; `canonical`: of the body as JSON (RFC 8785), so that the same body
 * with its fields in another order is the same request, stored in `canonical_fingerprint`. A
 * request is the key's when either matches; a key without a canonical one (stored by the previous
 * version) by the raw one only. Writing the raw one where it always was keeps a retry that reaches
 * a replica of the previous version during a rolling upgrade a replay, not a 422 that a caller
 * would resolve with a new key, and a second send. Both are hashes of the same method and path
 * with the same body.
 */
export interface Fingerprints {
  raw: string;
  canonical: string;
}

interface KeyRow {
  fingerprint: string;
  canonical_fingerprint: string | null;
  response_status: number | null;
  response_body: string | null;
}

interface ClaimedRow {
  resource_id: string | null;
}

/**
 * The idempotency keys of every organization, in the database so that every replica sees the same
 * ones. A request claims its key with one statement: it is new, or its 24 hours are over, or the
 * request that held it stopped without answering, or committed its resource without storing its
 * answer (a crash between the two; the resource is then answered, not created again); else the
 * key's row says what to do.
 */
@Injectable()
export class IdempotencyKeys {
  private prunedAt = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  async claim(organizationId: string, key: string, fingerprints: Fingerprints): Promise<Claim> {
    const now = this.clock.now();
    await this.pruneNow(now);
    // canonical_fingerprint is stored as the canonical one, a space, and the raw one stored with
    // it: a key that a replica of the previous version took over (it rewrites `fingerprint`
    // only) no longer matches by the canonical one of the request before.
    const claimed = (await this.db.query(
      `INSERT INTO idempotency_keys
         (organization_id, key, fingerprint, canonical_fingerprint, created_at, locked_until)
       VALUES ($1, $2, $3, $7::text || ' ' || $3::text, $4, $5)
       ON CONFLICT (organization_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint,
             canonical_fingerprint = EXCLUDED.canonical_fingerprint,
             created_at = EXCLUDED.created_at,
             locked_until = EXCLUDED.locked_until, response_status = NULL, response_body = NULL,
             resource_id = CASE WHEN idempotency_keys.created_at < $6 THEN NULL
                                ELSE idempotency_keys.resource_id END
         WHERE idempotency_keys.created_at < $6
            OR (idempotency_keys.response_status IS NULL
                AND (idempotency_keys.locked_until < $4 OR idempotency_keys.resource_id IS NOT NULL)
                AND (idempotency_keys.fingerprint = $3
                     OR idempotency_keys.canonical_fingerprint
                        = $7::text || ' ' || idempotency_keys.fingerprint))
       RETURNING resource_id`,
      [
        organizationId,
        key,
        fingerprints.raw,
        new Date(now),
        new Date(now + IN_PROGRESS_MS),
        new Date(now - KEY_LIFETIME_MS),
        fingerprints.canonical,
      ],
    )) as ClaimedRow[];
    if (claimed.length > 0) return { kind: 'claimed', resourceId: claimed[0].resource_id };
    const [row] = (await this.db.query(
      `SELECT fingerprint, canonical_fingerprint, response_status, response_body
       FROM idempotency_keys WHERE organization_id = $1 AND key = $2`,
      [organizationId, key],
    )) as KeyRow[];
    // Gone between the two statements (pruned): the next try claims it.
    if (!row) return { kind: 'in_progress' };
    if (
      row.fingerprint !== fingerprints.raw &&
      row.canonical_fingerprint !== `${fingerprints.canonical} ${row.fingerprint}`
    ) {
      return { kind: 'reused' };
    }
    if (row.response_status !== null && row.response_body !== null) {
      return { kind: 'replay', status: row.response_status, body: row.response_body };
    }
    return { kind: 'in_progress' };
  }

  /**
   * Inserts what an idempotent request creates and records it under the request's key, in one
   * transaction: from its commit on, a retry answers that resource instead of creating another.
   * Without a key, a plain insert.
   */
  async insertCreated<T extends { id: string }>(
    entity: EntityTarget<T>,
    row: T,
    request: IdempotentRequest | undefined,
  ): Promise<void> {
    await this.db.transaction(async (manager) => {
      await manager.insert(entity, row as QueryDeepPartialEntity<T>);
      if (!request) return;
      await manager.query(
        'UPDATE idempotency_keys SET resource_id = $3 WHERE organization_id = $1 AND key = $2',
        [request.organizationId, request.key, row.id],
      );
    });
  }

  /** The request succeeded: its answer is what the key replays from now on. */
  async complete(organizationId: string, key: string, status: number, body: string): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET response_status = $3, response_body = $4, locked_until = NULL
       WHERE organization_id = $1 AND key = $2`,
      [organizationId, key, status, body],
    );
  }

  /**
   * The request failed: the key is free again, so a retry runs it anew; unless its resource was
   * committed before the failure, which a retry then answers.
   */
  async release(organizationId: string, key: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys
       WHERE organization_id = $1 AND key = $2 AND response_status IS NULL AND resource_id IS NULL`,
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
