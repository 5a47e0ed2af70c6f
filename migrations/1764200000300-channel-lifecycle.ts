import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Channels can be removed (kept, marked `deleted_at`: follow-ups, deliveries and messages still
 * point at them, and their webhooks must answer 403), say why they are inactive, and Messanger
 * channels get a status of their own (Meta rejects a Page token like a WhatsApp one).
 */
export class ChannelLifecycle1764200000300 implements MigrationInterface {
  name = 'ChannelLifecycle1764200000300';

  async up(db: QueryRunner): Promise<void> {
    for (const table of ['whatsapp_channels', 'messanger_channels']) {
      await db.query(`ALTER TABLE ${table} ADD COLUMN deleted_at timestamptz`);
      await db.query(`ALTER TABLE ${table} ADD COLUMN status_reason_code text`);
      await db.query(`ALTER TABLE ${table} ADD COLUMN status_reason_message text`);
    }
    await db.query(
      `ALTER TABLE messanger_channels ADD COLUMN status text NOT NULL DEFAULT 'active'
         CHECK (status IN ('active', 'inactive'))`,
    );
    // A removed channel's number may be bound again.
    await db.query('DROP INDEX whatsapp_channels_org_number_key');
    await db.query(
      `CREATE UNIQUE INDEX whatsapp_channels_org_number_key ON whatsapp_channels (organization_id, number_id)
        WHERE deleted_at IS NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX whatsapp_channels_org_number_key');
    await db.query(
      'CREATE UNIQUE INDEX whatsapp_channels_org_number_key ON whatsapp_channels (organization_id, number_id)',
    );
    await db.query('ALTER TABLE messanger_channels DROP COLUMN status');
    for (const table of ['whatsapp_channels', 'messanger_channels']) {
      await db.query(`ALTER TABLE ${table} DROP COLUMN status_reason_message`);
      await db.query(`ALTER TABLE ${table} DROP COLUMN status_reason_code`);
      await db.query(`ALTER TABLE ${table} DROP COLUMN deleted_at`);
    }
  }
}
