import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE tools (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id text NOT NULL,
        name text NOT NULL,
        qualified_name text NOT NULL,
        toolkit_version text NOT NULL,
        params_json text,
        api_key_encrypted text,
        authorization_status text NOT NULL
          CHECK (authorization_status IN ('pending', 'completed', 'failed', 'not_started')),
        oauth2_url text NOT NULL DEFAULT '',
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // Serves requirements.met lookups: an agent's attachments of the tools on a page of specs.
    await db.query(
      'CREATE INDEX tools_org_agent_tool_idx ON tools (organization_id, agent_id, qualified_name)',
    );

    await db.query(`
      CREATE TABLE whatsapp_channels (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id text NOT NULL,
        number_id text NOT NULL,
        access_token_encrypted text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'inactive')),
        verification_token text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT whatsapp_channels_verification_token_key UNIQUE (verification_token)
      )`);
    await db.query(
      'CREATE UNIQUE INDEX whatsapp_channels_org_number_key ON whatsapp_channels (organization_id, number_id)',
    );
    await db.query(
      'CREATE INDEX whatsapp_channels_org_agent_idx ON whatsapp_channels (organization_id, agent_id)',
    );

    await db.query(`
      CREATE TABLE messanger_channels (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id text NOT NULL,
        user_id text NOT NULL,
        access_token_encrypted text NOT NULL,
        verification_token text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT messanger_channels_verification_token_key UNIQUE (verification_token)
      )`);
    await db.query(
      'CREATE INDEX messanger_channels_org_agent_idx ON messanger_channels (organization_id, agent_id)',
    );

    await db.query(`
      CREATE TABLE follow_ups (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id text NOT NULL,
        channel_id uuid NOT NULL REFERENCES whatsapp_channels (id),
        channel_type text NOT NULL CHECK (channel_type IN ('Whatsapp', 'Messanger')),
        client_phone_numbers jsonb NOT NULL,
        frequency text NOT NULL,
        time_zone text NOT NULL,
        prompt text NOT NULL,
        title text NOT NULL,
        description text,
        status text NOT NULL CHECK (status IN ('active', 'paused', 'completed')),
        anchor_at timestamptz NOT NULL,
        next_run_at timestamptz,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await db.query(
      'CREATE INDEX follow_ups_org_agent_idx ON follow_ups (organization_id, agent_id)',
    );
    await db.query(
      'CREATE INDEX follow_ups_org_channel_idx ON follow_ups (organization_id, channel_id)',
    );
    // The scheduler's due-scan reads only active follow-ups in next_run_at order.
    await db.query(
      "CREATE INDEX follow_ups_due_idx ON follow_ups (next_run_at) WHERE status = 'active'",
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE follow_ups');
    await db.query('DROP TABLE messanger_channels');
    await db.query('DROP TABLE whatsapp_channels');
    await db.query('DROP TABLE tools');
  }
}
