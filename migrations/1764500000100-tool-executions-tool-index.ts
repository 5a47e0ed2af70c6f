import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Removing a tool cascades to its executions (1764400000000), found by `tool_id` alone; the only
 * index that holds it leads with `organization_id`, so each DELETE read the whole table.
 */
export class ToolExecutionsToolIndex1764500000100 implements MigrationInterface {
  name = 'ToolExecutionsToolIndex1764500000100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'CREATE INDEX IF NOT EXISTS tool_executions_tool_idx ON tool_executions (tool_id)',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX IF EXISTS tool_executions_tool_idx');
  }
}
