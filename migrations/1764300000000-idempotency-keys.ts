import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key on the POSTs that create or send: one row per (organization, key), holding
 * what the first request was (its fingerprint) and, once it succeeded, what it answered.
 */
export class IdempotencyKeys1764300000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764300000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE idempotency_keys (
        organization_id text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        created_at timestamptz NOT NULL,
        locked_until timestamptz,
        response_status integer,
        response_body text,
        PRIMARY KEY (organization_id, key)
      )`);
    // The hourly prune of keys past their 24 hours.
    await db.query('CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE idempotency_keys');
  }
}
