import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An idempotency key keeps the fingerprint of the body as JSON (RFC 8785) beside the one of the
 * body as sent: `fingerprint` stays what every earlier version stores and compares, so that during
 * a rolling upgrade a replica of the previous version still recognises a retry of a request that
 * a new one claimed (see IdempotencyKeys.claim). Null on keys the previous version stored.
 */
export class IdempotencyCanonicalFingerprint1765000200000 implements MigrationInterface {
  name = 'IdempotencyCanonicalFingerprint1765000200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS canonical_fingerprint text',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE idempotency_keys DROP COLUMN IF EXISTS canonical_fingerprint');
  }
}
