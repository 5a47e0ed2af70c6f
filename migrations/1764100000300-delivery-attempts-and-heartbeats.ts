import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every send attempt of a delivery, kept (so that a repeated message can be seen and explained),
 * and a heartbeat row per scheduler process (so that the claims of a dead process are taken over
 * within seconds instead of when their lease runs out).
 */
export class DeliveryAttemptsAndHeartbeats1764100000300 implements MigrationInterface {
  name = 'DeliveryAttemptsAndHeartbeats1764100000300';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE delivery_attempts (
        delivery_id uuid NOT NULL REFERENCES deliveries (id),
        attempt integer NOT NULL,
        organization_id text NOT NULL,
        process_id text NOT NULL,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        outcome text CHECK (outcome IN ('sent', 'failed', 'unknown')),
        wa_message_id text,
        error_code text,
        error_message text,
        PRIMARY KEY (delivery_id, attempt)
      )`);
    await db.query(`
      CREATE TABLE scheduler_processes (
        id text PRIMARY KEY,
        host text NOT NULL,
        pid integer NOT NULL,
        started_at timestamptz NOT NULL,
        beaten_at timestamptz NOT NULL,
        -- Since when this process has beaten without a gap: a process that was itself cut off
        -- from the database must not judge others dead until it has watched them for a while.
        beating_since timestamptz NOT NULL
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE scheduler_processes');
    await db.query('DROP TABLE delivery_attempts');
  }
}
