import { MigrationInterface, QueryRunner } from 'typeorm';

/** Executions keep at most 64 KB of input and of output; this says when one was cut. */
export class ToolExecutionTruncated1764100000000 implements MigrationInterface {
  name = 'ToolExecutionTruncated1764100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE tool_executions ADD COLUMN truncated boolean NOT NULL DEFAULT false',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE tool_executions DROP COLUMN truncated');
  }
}
