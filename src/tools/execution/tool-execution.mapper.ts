import { JsonValue } from '../../common/json';
import { toMillis } from '../../common/time';
import {
  ToolExecutionDto,
  ToolExecutionOutputDto,
  ToolExecutionResultDto,
} from './dto/tool-execution.dto';
import { ToolExecutionEntity } from './tool-execution.entity';
import { ToolExecutionResult } from './tool-execution.service';

export function toToolExecutionResponse(execution: ToolExecutionEntity): ToolExecutionDto {
  return {
    id: execution.id,
    tool_id: execution.toolId,
    agent_id: execution.agentId,
    qualified_name: execution.qualifiedName,
    input: JSON.parse(execution.inputJson) as Record<string, JsonValue>,
    output: JSON.parse(execution.outputJson) as ToolExecutionOutputDto,
    status: execution.status,
    error: execution.error,
    truncated: execution.truncated,
    duration_ms: execution.durationMs,
    mcp_request_id: execution.mcpRequestId,
    organization_id: execution.organizationId,
    created_by: execution.createdBy,
    created_at: toMillis(execution.createdAt),
  };
}

/** The answer to POST /v1/tools/{id}/execute: the output as the tool gave it, and the record's id. */
export function toToolExecutionResultResponse({
  execution,
  output,
}: ToolExecutionResult): ToolExecutionResultDto {
  return {
    execution_id: execution.id,
    status: execution.status,
    output,
    duration_ms: execution.durationMs,
  };
}
