import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an idempotent request created, written in the same transaction as the resource: a retry
 * after a crash between that commit and the stored answer finds it and answers it, instead of
 * doing the work (a send) a second time.
 */
export class IdempotencyResource1764500000200 implements MigrationInterface {
  name = 'IdempotencyResource1764500000200';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE idempotency_keys ADD COLUMN resource_id text');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE idempotency_keys DROP COLUMN resource_id');
  }
}
