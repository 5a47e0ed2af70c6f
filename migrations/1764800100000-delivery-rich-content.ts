import { MigrationInterface, QueryRunner } from 'typeorm';

const TYPES_BEFORE = `'text', 'template'`;
const TYPES_AFTER = `'text', 'template', 'image', 'video', 'audio', 'document', 'sticker',
  'location', 'contacts', 'interactive', 'reaction', 'attachment'`;

/**
 * Issue 20, rich sends now: a delivery keeps its kind's own message (WhatsApp media, location,
 * contacts, interactive, reaction or a quoted reply; Messenger quick replies, an attachment or a
 * message tag) in `content`, so that every retry sends it again as it was asked; `message_type`
 * names what went out.
 */
export class DeliveryRichContent1764800100000 implements MigrationInterface {
  name = 'DeliveryRichContent1764800100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE deliveries ADD COLUMN content jsonb');
    await db.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_message_type_check');
    await db.query(
      `ALTER TABLE deliveries ADD CONSTRAINT deliveries_message_type_check
         CHECK (message_type IN (${TYPES_AFTER}))`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DELETE FROM deliveries WHERE content IS NOT NULL');
    await db.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_message_type_check');
    await db.query(
      `ALTER TABLE deliveries ADD CONSTRAINT deliveries_message_type_check
         CHECK (message_type IN (${TYPES_BEFORE}))`,
    );
    await db.query('ALTER TABLE deliveries DROP COLUMN content');
  }
}
