import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A `failed` status can overtake its send's own answer like `delivered` and `read` do; applied
 * later, it needs Meta's error, so the status keeps it.
 */
export class EarlyFailedStatuses1764700100100 implements MigrationInterface {
  name = 'EarlyFailedStatuses1764700100100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE channel_message_statuses ADD COLUMN error_code text, ADD COLUMN error_title text',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE channel_message_statuses DROP COLUMN error_title, DROP COLUMN error_code',
    );
  }
}
