import { MigrationInterface, QueryRunner } from 'typeorm';

/** OAuth2: grants per (organization, agent, provider), authorizations in flight, tool reasons. */
export class OAuth2Grants1764000000000 implements MigrationInterface {
  name = 'OAuth2Grants1764000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE tools ADD COLUMN authorization_status_reason text');
    // GET /v1/tools lists an organization's tools newest first.
    await db.query(
      'CREATE INDEX tools_org_created_idx ON tools (organization_id, created_at DESC, id DESC)',
    );

    await db.query(`
      CREATE TABLE oauth2_grants (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id text NOT NULL,
        provider_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'failed')),
        scopes text NOT NULL,
        access_token_encrypted text,
        refresh_token_encrypted text,
        token_type text,
        expires_at timestamptz,
        failure_reason text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT oauth2_grants_owner_key UNIQUE (organization_id, agent_id, provider_id)
      )`);

    await db.query(`
      CREATE TABLE oauth2_states (
        nonce text PRIMARY KEY,
        organization_id text NOT NULL,
        agent_id text NOT NULL,
        provider_id text NOT NULL,
        tool_id uuid NOT NULL REFERENCES tools (id) ON DELETE CASCADE,
        scopes text NOT NULL,
        code_verifier_encrypted text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    // Deleting a tool cascades to its states; stale states are swept by expiry.
    await db.query('CREATE INDEX oauth2_states_tool_idx ON oauth2_states (tool_id)');
    await db.query('CREATE INDEX oauth2_states_expires_idx ON oauth2_states (expires_at)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE oauth2_states');
    await db.query('DROP TABLE oauth2_grants');
    await db.query('DROP INDEX tools_org_created_idx');
    await db.query('ALTER TABLE tools DROP COLUMN authorization_status_reason');
  }
}
