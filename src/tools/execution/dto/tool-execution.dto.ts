import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsObject } from 'class-validator';
import { PaginationQueryDto } from '../../../common/http/pagination.dto';
import { FreeFormJson } from '../../../common/http/validation.decorators';
import { JsonValue } from '../../../common/json';
import { TOOL_EXECUTION_STATUSES, ToolExecutionStatus } from '../tool-execution.entity';
import { OrganizationIdProperty } from '../../../common/http/openapi.decorators';

export class ExecuteToolDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "The tool's arguments, checked against its specification's parameters (GET /v1/tools/specs).",
    example: { expression: '(1200 * 0.075) / 12' },
  })
  @IsDefined({ message: 'input is required' })
  @IsObject({ message: 'input must be a JSON object' })
  @FreeFormJson()
  input!: Record<string, unknown>;
}

export class ToolExecutionOutputDto {
  @ApiPropertyOptional({
    description: 'What the tool returned (any JSON value); absent when it failed.',
    // Any JSON value: without this, the schema would say object and 7.5 would not fit it.
    oneOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', items: {} },
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
    ],
    example: 7.5,
  })
  value?: JsonValue;
  @ApiPropertyOptional({
    description: 'Why the tool failed, for the model to read; absent when it succeeded.',
    example: 'OpenWeather answered HTTP 404: city not found',
  })
  error?: string;
}

export class ToolExecutionResultDto {
  @ApiProperty({ format: 'uuid', description: 'The execution record (GET .../executions).' })
  execution_id!: string;
  @ApiProperty({ enum: TOOL_EXECUTION_STATUSES }) status!: ToolExecutionStatus;
  @ApiProperty({ type: ToolExecutionOutputDto }) output!: ToolExecutionOutputDto;
  @ApiProperty({ type: 'integer', example: 12 }) duration_ms!: number;
}

export class ToolExecutionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) tool_id!: string;
  @ApiProperty({ example: 'agent_support_es' }) agent_id!: string;
  @ApiProperty({ example: 'Math.Calculate' }) qualified_name!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) input!: Record<string, JsonValue>;
  @ApiProperty({ type: ToolExecutionOutputDto }) output!: ToolExecutionOutputDto;
  @ApiProperty({ enum: TOOL_EXECUTION_STATUSES }) status!: ToolExecutionStatus;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({
    description:
      'True when input or output was larger than 64 KB (serialized) and the record keeps a shortened copy: long strings cut (ending in "…"), long arrays and objects cut to their first entries.',
  })
  truncated!: boolean;
  @ApiProperty({ type: 'integer' }) duration_ms!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description:
      'The JSON-RPC id (as text) of the MCP `tools/call` request that ran the tool through `/v1/agents/{agent_id}/mcp`; null for a run asked over REST.',
  })
  mcp_request_id!: string | null;
  @OrganizationIdProperty() organization_id!: string;
  @ApiProperty({ example: 'user_alice', description: 'The JWT subject that executed the tool.' })
  created_by!: string;
  @ApiProperty({ type: 'integer', format: 'date-time', example: 1763800000000 })
  created_at!: number;
}

export class ToolExecutionPageDto {
  @ApiProperty({
    type: [ToolExecutionDto],
    description:
      'Newest first. A page also stops before about 1 MiB of records: it may hold fewer than `limit` items although more follow; the next page starts at `offset + items.length`.',
  })
  items!: ToolExecutionDto[];
  @ApiProperty({ type: 'integer', example: 0 }) offset!: number;
  @ApiProperty({ type: 'integer', example: 1 }) total_count!: number;
}

export class ListToolExecutionsQueryDto extends PaginationQueryDto {}
