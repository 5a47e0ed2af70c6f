import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What Retention prunes, found by age without reading the tables: settled webhook notifications
 * by when they arrived, delivery attempts by when they started.
 */
export class RetentionIndexes1764500000110 implements MigrationInterface {
  name = 'RetentionIndexes1764500000110';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      "CREATE INDEX IF NOT EXISTS webhook_inbox_settled_idx ON webhook_inbox (received_at) WHERE status <> 'pending'",
    );
    await db.query(
      'CREATE INDEX IF NOT EXISTS delivery_attempts_started_idx ON delivery_attempts (started_at)',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX IF EXISTS delivery_attempts_started_idx');
    await db.query('DROP INDEX IF EXISTS webhook_inbox_settled_idx');
  }
}
