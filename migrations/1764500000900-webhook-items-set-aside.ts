import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The items of signed notifications that could not apply (an unreadable message, status or
 * Messenger event), each with its reason, kept for inspection while the rest of the notification
 * applies. They go with their notification when it is removed.
 */
export class WebhookItemsSetAside1764500000900 implements MigrationInterface {
  name = 'WebhookItemsSetAside1764500000900';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_items_set_aside (
        id uuid PRIMARY KEY,
        inbox_id uuid NOT NULL REFERENCES webhook_inbox (id) ON DELETE CASCADE,
        organization_id text NOT NULL,
        channel_kind text NOT NULL CHECK (channel_kind IN ('whatsapp', 'messanger')),
        -- The channel whose webhook URL received it.
        channel_id uuid NOT NULL,
        -- Where the item sits in the notification's body: entry[0].changes[0].value.messages[1].
        path text NOT NULL,
        item text NOT NULL CHECK (item IN ('message', 'status', 'event', 'change')),
        reason text NOT NULL,
        detail text NOT NULL,
        -- The item as JSON text: escapes keep a NUL or an unpaired surrogate storable. Cut when long;
        -- the notification's body holds it whole.
        content text NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (inbox_id, path)
      )`);
    await db.query(
      'CREATE INDEX webhook_items_set_aside_channel_idx ON webhook_items_set_aside (channel_id, created_at DESC)',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE webhook_items_set_aside');
  }
}
