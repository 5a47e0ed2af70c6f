import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20: a WhatsApp channel may name its WhatsApp Business Account (`business_account_id`), and
 * agentline keeps that account's template catalog, one row per template and language, as Graph's
 * `GET /{waba_id}/message_templates` lists them (`components` exactly as Meta sends them).
 */
export class WhatsappTemplates1764800000000 implements MigrationInterface {
  name = 'WhatsappTemplates1764800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE whatsapp_channels ADD COLUMN business_account_id text');
    // The last sync that succeeded (null: no catalog yet, templates go as given), and the last
    // failure (kept until a sync succeeds; the catalog stays as it was).
    await db.query('ALTER TABLE whatsapp_channels ADD COLUMN templates_synced_at timestamptz');
    await db.query('ALTER TABLE whatsapp_channels ADD COLUMN templates_sync_error text');
    await db.query('ALTER TABLE whatsapp_channels ADD COLUMN templates_sync_failed_at timestamptz');
    await db.query(`
      CREATE TABLE whatsapp_templates (
        channel_id uuid NOT NULL,
        name text NOT NULL,
        language text NOT NULL,
        organization_id text NOT NULL,
        template_id text,
        status text NOT NULL,
        category text,
        parameter_format text NOT NULL DEFAULT 'POSITIONAL',
        components jsonb NOT NULL DEFAULT '[]',
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, name, language)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE whatsapp_templates');
    for (const column of [
      'business_account_id',
      'templates_synced_at',
      'templates_sync_error',
      'templates_sync_failed_at',
    ]) {
      await db.query(`ALTER TABLE whatsapp_channels DROP COLUMN ${column}`);
    }
  }
}
