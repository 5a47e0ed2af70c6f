import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound messages whole (issue 19): what a message holds beyond its text (`content`), the message
 * it replies to (`context`), the ad or link it came from (`referral`), Meta's element as sent
 * (`raw`), the sender's profile, and people Meta names only by a business-scoped user id (BSUID):
 * `sender` may be null when `sender_user_id` is set. `opens_window` says whether the message starts
 * the 24-hour customer service window (a reaction on Messenger, Meta's system notices do not).
 */
export class InboundContent1764700100000 implements MigrationInterface {
  name = 'InboundContent1764700100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE channel_messages
        ALTER COLUMN sender DROP NOT NULL,
        ADD COLUMN sender_user_id text,
        ADD COLUMN profile jsonb,
        ADD COLUMN content jsonb,
        ADD COLUMN context jsonb,
        ADD COLUMN referral jsonb,
        ADD COLUMN raw jsonb,
        ADD COLUMN opens_window boolean NOT NULL DEFAULT true,
        ADD CONSTRAINT channel_messages_sender_known
          CHECK (sender IS NOT NULL OR sender_user_id IS NOT NULL) NOT VALID`);
    // Checked apart: VALIDATE scans the table without holding off writes as ADD would.
    await db.query(
      'ALTER TABLE channel_messages VALIDATE CONSTRAINT channel_messages_sender_known',
    );
    // Meta's value-level errors are an item of their own, set aside like the others.
    await db.query(`
      ALTER TABLE webhook_items_set_aside
        DROP CONSTRAINT webhook_items_set_aside_item_check,
        ADD CONSTRAINT webhook_items_set_aside_item_check
          CHECK (item IN ('message', 'status', 'event', 'change', 'errors'))`);
    await db.query(
      `CREATE INDEX channel_messages_user_window_idx
         ON channel_messages (channel_id, sender_user_id, received_at DESC)
         WHERE sender_user_id IS NOT NULL`,
    );
    // A media download names its file from the message that carried the media id.
    await db.query(
      `CREATE INDEX channel_messages_media_idx
         ON channel_messages (channel_id, (content->>'media_id'))
         WHERE content->>'media_id' IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    // Messages of people known only by a user id cannot stay; going back is refused, not lossy.
    const [{ count }] = (await db.query(
      'SELECT count(*)::int AS count FROM channel_messages WHERE sender IS NULL',
    )) as { count: number }[];
    if (count > 0) {
      throw new Error(
        `${count} inbound messages have no phone sender (business-scoped user ids only); remove them before reverting`,
      );
    }
    await db.query(`DELETE FROM webhook_items_set_aside WHERE item = 'errors'`);
    await db.query(`
      ALTER TABLE webhook_items_set_aside
        DROP CONSTRAINT webhook_items_set_aside_item_check,
        ADD CONSTRAINT webhook_items_set_aside_item_check
          CHECK (item IN ('message', 'status', 'event', 'change'))`);
    await db.query('DROP INDEX channel_messages_media_idx');
    await db.query('DROP INDEX channel_messages_user_window_idx');
    await db.query(`
      ALTER TABLE channel_messages
        DROP CONSTRAINT channel_messages_sender_known,
        DROP COLUMN opens_window,
        DROP COLUMN raw,
        DROP COLUMN referral,
        DROP COLUMN context,
        DROP COLUMN content,
        DROP COLUMN profile,
        DROP COLUMN sender_user_id,
        ALTER COLUMN sender SET NOT NULL`);
  }
}
