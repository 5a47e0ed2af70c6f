import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Messenger's watermarks (issue 19): a `delivery` or `read` that says "every message to this
 * person up to then" is kept, the highest per (channel, person, status), so that a message whose
 * send's answer is written after the watermark arrived still gets it (as `channel_message_statuses`
 * keeps a status by message id for the same race).
 */
export class ChannelWatermarks1764700300000 implements MigrationInterface {
  name = 'ChannelWatermarks1764700300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE channel_watermarks (
        channel_id uuid NOT NULL,
        recipient text NOT NULL,
        status text NOT NULL,
        watermark timestamptz NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, recipient, status)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE channel_watermarks');
  }
}
