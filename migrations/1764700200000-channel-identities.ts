import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Forms of one person on one channel (issue 19, identity): a phone number and its WhatsApp
 * business-scoped user id, the number Meta's `wa_id` gives for a number dialled in another form, a
 * previous and a current BSUID. Each link is stored both ways, so that every form's links are one
 * index range of the primary key. Opt-outs and the 24-hour window read every form of a recipient.
 * An item set aside may now be a `user_id_update` entry (`identity`), or a change's value-level
 * `errors`, which the parser already reports as an item of their own.
 */
export class ChannelIdentities1764700200000 implements MigrationInterface {
  name = 'ChannelIdentities1764700200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE channel_identities (
        channel_id uuid NOT NULL,
        form text NOT NULL,
        other text NOT NULL,
        organization_id text NOT NULL,
        source text NOT NULL
          CHECK (source IN ('send_answer', 'message', 'status', 'user_id_update', 'system_message')),
        learned_at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, form, other),
        CHECK (form <> other)
      )`);
    await db.query(`
      ALTER TABLE webhook_items_set_aside
        DROP CONSTRAINT webhook_items_set_aside_item_check,
        ADD CONSTRAINT webhook_items_set_aside_item_check
          CHECK (item IN ('message', 'status', 'event', 'change', 'errors', 'identity'))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM webhook_items_set_aside WHERE item = 'identity'`);
    // Back to what InboundContent1764700100000 allows.
    await db.query(`
      ALTER TABLE webhook_items_set_aside
        DROP CONSTRAINT webhook_items_set_aside_item_check,
        ADD CONSTRAINT webhook_items_set_aside_item_check
          CHECK (item IN ('message', 'status', 'event', 'change', 'errors'))`);
    await db.query('DROP TABLE channel_identities');
  }
}
