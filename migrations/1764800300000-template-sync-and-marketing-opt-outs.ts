import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20, items 5 and 7. The template catalog's sync is asked for (`templates_sync_requested_at`:
 * on create or modify, on demand, by a template webhook) and run by one replica at a time
 * (`templates_sync_lease_until`: a conditional UPDATE takes it; a crashed replica's lease runs
 * out). Meta's "stop marketing messages" (a 131050 `failed` status, a `user_preferences`
 * notification) is kept apart from the channel's own opt-outs: it blocks MARKETING templates only,
 * and only Meta's "resume" lifts it.
 */
export class TemplateSyncAndMarketingOptOuts1764800300000 implements MigrationInterface {
  name = 'TemplateSyncAndMarketingOptOuts1764800300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE whatsapp_channels ADD COLUMN templates_sync_requested_at timestamptz',
    );
    await db.query(
      'ALTER TABLE whatsapp_channels ADD COLUMN templates_sync_lease_until timestamptz',
    );
    // Template webhooks name the account (entry.id), not a number: the organization's channels of it.
    await db.query(
      `CREATE INDEX whatsapp_channels_business_account_idx
           ON whatsapp_channels (organization_id, business_account_id)
        WHERE business_account_id IS NOT NULL AND deleted_at IS NULL`,
    );
    await db.query(`
      CREATE TABLE channel_marketing_opt_outs (
        channel_id uuid NOT NULL,
        recipient text NOT NULL,
        organization_id text NOT NULL,
        source text NOT NULL CHECK (source IN ('meta')),
        opted_out_at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, recipient)
      )`);
    // The new items a notification can set aside: a preference, a template update.
    await db.query(`
      ALTER TABLE webhook_items_set_aside
        DROP CONSTRAINT webhook_items_set_aside_item_check,
        ADD CONSTRAINT webhook_items_set_aside_item_check
          CHECK (item IN ('message', 'status', 'event', 'change', 'errors', 'identity',
                          'preference', 'template'))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM webhook_items_set_aside WHERE item IN ('preference', 'template')`);
    await db.query(`
      ALTER TABLE webhook_items_set_aside
        DROP CONSTRAINT webhook_items_set_aside_item_check,
        ADD CONSTRAINT webhook_items_set_aside_item_check
          CHECK (item IN ('message', 'status', 'event', 'change', 'errors', 'identity'))`);
    await db.query('DROP TABLE channel_marketing_opt_outs');
    await db.query('DROP INDEX whatsapp_channels_business_account_idx');
    await db.query('ALTER TABLE whatsapp_channels DROP COLUMN templates_sync_lease_until');
    await db.query('ALTER TABLE whatsapp_channels DROP COLUMN templates_sync_requested_at');
  }
}
