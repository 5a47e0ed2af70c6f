import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries follow Meta's statuses (delivered, read), say what they sent (text or template), can
 * be skipped (an opted-out recipient), and can be re-sent as a template (error 131047). Follow-ups
 * may carry a template for recipients outside the 24-hour window.
 */
export class DeliveryConversations1764200000200 implements MigrationInterface {
  name = 'DeliveryConversations1764200000200';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check');
    await db.query(
      `ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN
         ('pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'cancelled', 'skipped'))`,
    );
    await db.query('ALTER TABLE deliveries ADD COLUMN delivered_at timestamptz');
    await db.query('ALTER TABLE deliveries ADD COLUMN read_at timestamptz');
    await db.query(
      `ALTER TABLE deliveries ADD COLUMN message_type text NOT NULL DEFAULT 'text'
         CHECK (message_type IN ('text', 'template'))`,
    );
    // Set when Meta refused text outside the window (131047): the next attempt sends the template.
    await db.query(
      'ALTER TABLE deliveries ADD COLUMN template_required boolean NOT NULL DEFAULT false',
    );
    // Statuses find their delivery by Meta's id.
    await db.query(
      'CREATE INDEX deliveries_wa_message_idx ON deliveries (channel_id, wa_message_id) WHERE wa_message_id IS NOT NULL',
    );
    await db.query('ALTER TABLE follow_ups ADD COLUMN template jsonb');
    // Sends now: a delivery of its own, on a channel of either kind, carrying its message.
    await db.query('ALTER TABLE deliveries ALTER COLUMN follow_up_id DROP NOT NULL');
    await db.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_channel_id_fkey');
    await db.query(
      `ALTER TABLE deliveries ADD COLUMN channel_kind text NOT NULL DEFAULT 'whatsapp'
         CHECK (channel_kind IN ('whatsapp', 'messanger'))`,
    );
    await db.query('ALTER TABLE deliveries ADD COLUMN message_text text');
    // Its channel was removed while it was claimed: no call may start; given back as cancelled.
    await db.query(
      'ALTER TABLE deliveries ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false',
    );
    await db.query('ALTER TABLE deliveries ADD COLUMN template jsonb');
    await db.query(
      'CREATE INDEX deliveries_channel_idx ON deliveries (organization_id, channel_id, created_at DESC)',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX deliveries_channel_idx');
    await db.query('DELETE FROM deliveries WHERE follow_up_id IS NULL');
    for (const column of ['cancel_requested', 'template', 'message_text', 'channel_kind']) {
      await db.query(`ALTER TABLE deliveries DROP COLUMN ${column}`);
    }
    await db.query(
      'ALTER TABLE deliveries ADD CONSTRAINT deliveries_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES whatsapp_channels (id)',
    );
    await db.query('ALTER TABLE deliveries ALTER COLUMN follow_up_id SET NOT NULL');
    await db.query('ALTER TABLE follow_ups DROP COLUMN template');
    await db.query('DROP INDEX deliveries_wa_message_idx');
    for (const column of ['template_required', 'message_type', 'read_at', 'delivered_at']) {
      await db.query(`ALTER TABLE deliveries DROP COLUMN ${column}`);
    }
    await db.query('ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check');
    await db.query(
      `ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN
         ('pending', 'sending', 'sent', 'failed', 'cancelled'))`,
    );
  }
}
