import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tool run through the MCP endpoint (/v1/agents/{agent_id}/mcp) keeps the JSON-RPC id of the
 * `tools/call` request that asked for it, so that a host's log and agentline's record meet.
 */
export class ToolExecutionMcpRequestId1764900100000 implements MigrationInterface {
  name = 'ToolExecutionMcpRequestId1764900100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE tool_executions ADD COLUMN IF NOT EXISTS mcp_request_id text');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE tool_executions DROP COLUMN IF EXISTS mcp_request_id');
  }
}
