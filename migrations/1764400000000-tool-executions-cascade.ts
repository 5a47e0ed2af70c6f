import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tool's executions go with it: DELETE /v1/tools/{id} of a tool that had run failed with a
 * foreign-key violation (500), and its executions are only reachable under the tool's path.
 */
export class ToolExecutionsCascade1764400000000 implements MigrationInterface {
  name = 'ToolExecutionsCascade1764400000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE tool_executions
        DROP CONSTRAINT tool_executions_tool_id_fkey,
        ADD CONSTRAINT tool_executions_tool_id_fkey
          FOREIGN KEY (tool_id) REFERENCES tools (id) ON DELETE CASCADE`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE tool_executions
        DROP CONSTRAINT tool_executions_tool_id_fkey,
        ADD CONSTRAINT tool_executions_tool_id_fkey FOREIGN KEY (tool_id) REFERENCES tools (id)`);
  }
}
