import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const TOOL_EXECUTION_STATUSES = ['succeeded', 'failed', 'timed_out'] as const;
export type ToolExecutionStatus = (typeof TOOL_EXECUTION_STATUSES)[number];

/** One run of a tool attachment: what went in and what came out. Credentials are never stored. */
@Entity({ name: 'tool_executions' })
@Index('tool_executions_org_tool_created_idx', ['organizationId', 'toolId', 'createdAt'])
export class ToolExecutionEntity {
  @PrimaryColumn({ type: 'uuid' }) id!: string;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'tool_id', type: 'uuid' }) toolId!: string;
  @Column({ name: 'agent_id', type: 'text' }) agentId!: string;
  @Column({ name: 'qualified_name', type: 'text' }) qualifiedName!: string;
  /** The validated input as JSON text, key order kept. */
  @Column({ name: 'input_json', type: 'text' }) inputJson!: string;
  /** `{"value": ...}` or `{"error": "..."}` as JSON text, as answered (both cut to 64 KB). */
  @Column({ name: 'output_json', type: 'text' }) outputJson!: string;
  /** True when the input or the output was too large to keep whole (see stored-json.ts). */
  @Column({ type: 'boolean', default: false }) truncated!: boolean;
  @Column({ type: 'text' }) status!: ToolExecutionStatus;
  /** The error message of a failed or timed-out run; null when it succeeded. */
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ name: 'duration_ms', type: 'integer' }) durationMs!: number;
  /** The JSON-RPC id of the MCP `tools/call` that asked for this run, as text; null over REST. */
  @Column({ name: 'mcp_request_id', type: 'text', nullable: true }) mcpRequestId!: string | null;
  @Column({ name: 'created_by', type: 'text' }) createdBy!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
