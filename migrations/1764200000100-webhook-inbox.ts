import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Meta's notifications, stored before they are answered and processed from here, so that a crash
 * between the two loses nothing; and the statuses already applied, so that a resend is a no-op.
 */
export class WebhookInbox1764200000100 implements MigrationInterface {
  name = 'WebhookInbox1764200000100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_inbox (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        channel_kind text NOT NULL CHECK (channel_kind IN ('whatsapp', 'messanger')),
        channel_id uuid NOT NULL,
        -- The raw bytes Meta signed, kept exactly as received, also when malformed.
        body bytea NOT NULL,
        body_sha256 text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'processed', 'malformed')),
        error text,
        -- Processing that failed (the database, a bug) is tried again later, then given up.
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        processed_at timestamptz,
        -- The same notification twice (Meta resends it) is one row.
        UNIQUE (channel_id, body_sha256)
      )`);
    await db.query(
      "CREATE INDEX webhook_inbox_pending_idx ON webhook_inbox (next_attempt_at) WHERE status = 'pending'",
    );
    await db.query(`
      CREATE TABLE channel_message_statuses (
        channel_id uuid NOT NULL,
        message_id text NOT NULL,
        status text NOT NULL,
        at timestamptz NOT NULL,
        PRIMARY KEY (channel_id, message_id, status)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE channel_message_statuses');
    await db.query('DROP TABLE webhook_inbox');
  }
}
