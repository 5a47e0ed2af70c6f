import { MigrationInterface, QueryRunner } from 'typeorm';

/** The delivery outbox: one row per (follow-up, occurrence, phone), and per-channel send windows. */
export class DeliveryOutbox1763900000000 implements MigrationInterface {
  name = 'DeliveryOutbox1763900000000';

  async up(db: QueryRunner): Promise<void> {
    // UUID v7 in SQL (time-ordered ids for rows the dispatcher inserts in bulk).
    await db.query(`
      CREATE FUNCTION agentline_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
        SELECT encode(
          set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING
            substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
            FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
      $$`);

    await db.query('ALTER TABLE follow_ups ADD COLUMN deleted_at timestamptz');
    await db.query('ALTER TABLE follow_ups ADD COLUMN last_run_at timestamptz');

    await db.query(`
      CREATE TABLE deliveries (
        id uuid PRIMARY KEY DEFAULT agentline_uuid_v7(),
        organization_id text NOT NULL,
        follow_up_id uuid NOT NULL REFERENCES follow_ups (id),
        channel_id uuid NOT NULL REFERENCES whatsapp_channels (id),
        occurrence_at timestamptz NOT NULL,
        phone text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'cancelled')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_owner text,
        lease_expires_at timestamptz,
        last_error_code text,
        last_error_message text,
        wa_message_id text,
        sent_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT deliveries_occurrence_key UNIQUE (follow_up_id, occurrence_at, phone)
      )`);
    // Workers claim due pending rows in next_attempt_at order.
    await db.query(
      "CREATE INDEX deliveries_pending_idx ON deliveries (next_attempt_at) WHERE status = 'pending'",
    );
    // The reaper finds claims whose lease ran out (a crashed or stalled process).
    await db.query(
      "CREATE INDEX deliveries_lease_idx ON deliveries (lease_expires_at) WHERE status = 'sending'",
    );
    // A channel whose token Meta rejects fails its open deliveries at once.
    await db.query(
      "CREATE INDEX deliveries_channel_open_idx ON deliveries (channel_id) WHERE status IN ('pending', 'sending')",
    );
    await db.query('CREATE INDEX deliveries_org_idx ON deliveries (organization_id, follow_up_id)');

    await db.query(`
      CREATE TABLE channel_send_windows (
        organization_id text NOT NULL,
        channel_id uuid NOT NULL,
        window_start bigint NOT NULL,
        sent integer NOT NULL,
        PRIMARY KEY (channel_id, window_start)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE channel_send_windows');
    await db.query('DROP TABLE deliveries');
    await db.query('ALTER TABLE follow_ups DROP COLUMN last_run_at');
    await db.query('ALTER TABLE follow_ups DROP COLUMN deleted_at');
    await db.query('DROP FUNCTION agentline_uuid_v7()');
  }
}
