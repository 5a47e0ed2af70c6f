import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A `failed` status can overtake its send's own answer like `delivered` and `read` do; applied
 * later, it needs Meta's error, so the status keeps it, and its pricing. Deliveries show the
 * pricing of the last status that carried one (what a message costs).
 */
export class EarlyFailedStatuses1764700100100 implements MigrationInterface {
  name = 'EarlyFailedStatuses1764700100100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE channel_message_statuses
         ADD COLUMN error_code text, ADD COLUMN error_title text, ADD COLUMN pricing jsonb`,
    );
    await db.query('ALTER TABLE deliveries ADD COLUMN pricing jsonb');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE channel_message_statuses DROP COLUMN pricing, DROP COLUMN error_title, DROP COLUMN error_code',
    );
    await db.query('ALTER TABLE deliveries DROP COLUMN pricing');
  }
}
