import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What clients write to a channel (kept once each, by Meta's message id) and who asked not to be
 * written to. The last inbound message per (channel, sender) is the 24-hour customer service window.
 */
export class Conversations1764200000000 implements MigrationInterface {
  name = 'Conversations1764200000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE channel_messages (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        channel_kind text NOT NULL CHECK (channel_kind IN ('whatsapp', 'messanger')),
        channel_id uuid NOT NULL,
        -- E.164 phone (WhatsApp) or page-scoped id (Messenger) of the client who wrote.
        sender text NOT NULL,
        -- Meta's id (wamid or mid): a resent notification finds it and changes nothing.
        message_id text NOT NULL,
        type text NOT NULL,
        text text,
        received_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (channel_id, message_id)
      )`);
    await db.query(
      'CREATE INDEX channel_messages_window_idx ON channel_messages (channel_id, sender, received_at DESC)',
    );
    await db.query(
      'CREATE INDEX channel_messages_list_idx ON channel_messages (organization_id, channel_id, received_at DESC, id DESC)',
    );
    await db.query(`
      CREATE TABLE channel_opt_outs (
        channel_id uuid NOT NULL,
        recipient text NOT NULL,
        organization_id text NOT NULL,
        source text NOT NULL CHECK (source IN ('keyword', 'api')),
        opted_out_at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, recipient)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE channel_opt_outs');
    await db.query('DROP TABLE channel_messages');
  }
}
