import { MigrationInterface, QueryRunner } from 'typeorm';

/** The outbox of events for the agent's endpoint (AGENT_EVENTS_URL): at least once, any replica. */
export class AgentEvents1764200000400 implements MigrationInterface {
  name = 'AgentEvents1764200000400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE agent_events (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        type text NOT NULL,
        payload jsonb NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_owner text,
        lease_expires_at timestamptz,
        delivered_at timestamptz,
        failed_at timestamptz,
        last_error text,
        created_at timestamptz NOT NULL
      )`);
    // The sender's claim: undelivered events whose time has come.
    await db.query(
      'CREATE INDEX agent_events_due_idx ON agent_events (next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE agent_events');
  }
}
