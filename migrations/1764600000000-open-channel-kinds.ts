import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables that name a channel's kind beside its id. */
const KIND_COLUMNS = ['channel_messages', 'webhook_inbox', 'webhook_items_set_aside', 'deliveries'];

/**
 * A channel kind is a descriptor registered in code (src/channels/kinds/), so the tables stop
 * listing the two kinds there were: a third kind needs no change to them. The kind still has the
 * shape of one (it prefixes its table's name). Follow-ups keep the kind of their channel, which
 * their deliveries are queued with (they took the column's 'whatsapp' default until now).
 */
export class OpenChannelKinds1764600000000 implements MigrationInterface {
  name = 'OpenChannelKinds1764600000000';

  async up(db: QueryRunner): Promise<void> {
    for (const table of KIND_COLUMNS) {
      await db.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_channel_kind_check`);
      await db.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_channel_kind_check
           CHECK (channel_kind ~ '^[a-z][a-z0-9_]{0,30}$')`,
      );
    }
    await db.query(`ALTER TABLE deliveries ALTER COLUMN channel_kind DROP DEFAULT`);
    // A follow-up's channel is in its kind's table: no foreign key reaches every kind's (as for
    // deliveries since sends now). Channels are removed softly, so none dangles; the API checks
    // the channel, in the organization, at creation.
    await db.query('ALTER TABLE follow_ups DROP CONSTRAINT follow_ups_channel_id_fkey');
    // The kind's `type` ("Whatsapp"), as the contract spells it.
    await db.query(`ALTER TABLE follow_ups DROP CONSTRAINT follow_ups_channel_type_check`);
    await db.query(
      `ALTER TABLE follow_ups ADD CONSTRAINT follow_ups_channel_type_check
         CHECK (channel_type ~ '^[A-Z][A-Za-z0-9]{0,30}$')`,
    );
    await db.query(
      `ALTER TABLE follow_ups ADD COLUMN channel_kind text NOT NULL DEFAULT 'whatsapp'
         CHECK (channel_kind ~ '^[a-z][a-z0-9_]{0,30}$')`,
    );
    await db.query(`ALTER TABLE follow_ups ALTER COLUMN channel_kind DROP DEFAULT`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Rows of a kind the old checks do not know cannot stay; going back is refused, not lossy.
    for (const table of KIND_COLUMNS) {
      const [{ count }] = (await db.query(
        `SELECT count(*)::int AS count FROM ${table}
          WHERE channel_kind NOT IN ('whatsapp', 'messanger')`,
      )) as { count: number }[];
      if (count > 0) {
        throw new Error(`${table} holds ${count} rows of other channel kinds; remove them first.`);
      }
    }
    await db.query(`ALTER TABLE follow_ups DROP COLUMN channel_kind`);
    await db.query(
      'ALTER TABLE follow_ups ADD CONSTRAINT follow_ups_channel_id_fkey FOREIGN KEY (channel_id) REFERENCES whatsapp_channels (id)',
    );
    await db.query(`ALTER TABLE follow_ups DROP CONSTRAINT follow_ups_channel_type_check`);
    await db.query(
      `ALTER TABLE follow_ups ADD CONSTRAINT follow_ups_channel_type_check
         CHECK (channel_type IN ('Whatsapp', 'Messanger'))`,
    );
    await db.query(`ALTER TABLE deliveries ALTER COLUMN channel_kind SET DEFAULT 'whatsapp'`);
    for (const table of KIND_COLUMNS) {
      await db.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_channel_kind_check`);
      await db.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_channel_kind_check
           CHECK (channel_kind IN ('whatsapp', 'messanger'))`,
      );
    }
  }
}
