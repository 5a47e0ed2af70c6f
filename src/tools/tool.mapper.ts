import { JsonValue } from '../common/json';
import { toMillis } from '../common/time';
import { ToolDto } from './dto/tool.dto';
import { ToolEntity } from './entities/tool.entity';

/** The response type has no `api_key`: it cannot leak through here. */
export function toToolResponse(tool: ToolEntity): ToolDto {
  return {
    id: tool.id,
    agent_id: tool.agentId,
    name: tool.name,
    params: tool.paramsJson === null ? null : (JSON.parse(tool.paramsJson) as JsonValue),
    authorization_status: tool.authorizationStatus,
    oauth2_url: tool.oauth2Url,
    organization_id: tool.organizationId,
    created_by: tool.createdBy,
    created_at: toMillis(tool.createdAt),
    updated_at: toMillis(tool.updatedAt),
  };
}
