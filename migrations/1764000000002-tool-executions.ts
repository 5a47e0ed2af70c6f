import { MigrationInterface, QueryRunner } from 'typeorm';

/** Every run of a tool attachment: input, output, outcome and duration. */
export class ToolExecutions1764000000002 implements MigrationInterface {
  name = 'ToolExecutions1764000000002';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE tool_executions (
        id uuid PRIMARY KEY,
        organization_id text NOT NULL,
        tool_id uuid NOT NULL REFERENCES tools (id),
        agent_id text NOT NULL,
        qualified_name text NOT NULL,
        input_json text NOT NULL,
        output_json text NOT NULL,
        status text NOT NULL CHECK (status IN ('succeeded', 'failed', 'timed_out')),
        error text,
        duration_ms integer NOT NULL CHECK (duration_ms >= 0),
        created_by text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    // Serves GET /v1/tools/{id}/executions: one tool's runs, newest first.
    await db.query(
      'CREATE INDEX tool_executions_org_tool_created_idx ON tool_executions (organization_id, tool_id, created_at)',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE tool_executions');
  }
}
