import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { FreeFormJson, IsOptionalNotNull } from '../../common/http/validation.decorators';
import { PaginationQueryDto } from '../../common/http/pagination.dto';
import { JsonValue } from '../../common/json';
import { AUTHORIZATION_STATUSES, AuthorizationStatus } from '../entities/tool.entity';
import { TOOL_SCHEMA_FORMATS, ToolSchemaFormat } from '../catalog/tool-specification.types';
import { CreatedByProperty, OrganizationIdProperty } from '../../common/http/openapi.decorators';

export class CreateToolDto {
  @ApiProperty({ example: 'agent_support_es', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  @Matches(/^\S+$/, { message: 'agent_id must not contain whitespace' })
  agent_id!: string;

  @ApiProperty({
    example: 'Weather.GetCurrentWeather',
    description:
      'A qualified (`Toolkit.Tool`) or fully qualified (`Toolkit.Tool@1.0.0`) tool name from GET /v1/tools/specs.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({
    description: 'Any JSON value; stored and echoed exactly.',
    example: { units: 'metric' },
  })
  @Allow()
  @FreeFormJson()
  params?: JsonValue;

  @ApiPropertyOptional({
    description:
      'The secret a tool requires (e.g. OPENWEATHER_API_KEY): only for tools whose requirements name one, such as Weather.GetCurrentWeather. Stored encrypted; never returned.',
    writeOnly: true,
    maxLength: 4096,
    example: 'a3f9c2e4b7d14e6f8a0b1c2d3e4f5a6b',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  api_key?: string;
}

export class ToolDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'agent_support_es' }) agent_id!: string;
  @ApiProperty({ example: 'Weather.GetCurrentWeather' }) name!: string;
  @ApiProperty({
    description: 'Echoed from the request (any JSON value, or null when absent).',
    nullable: true,
  })
  params!: JsonValue;
  @ApiProperty({ enum: AUTHORIZATION_STATUSES }) authorization_status!: AuthorizationStatus;
  @ApiProperty({
    description:
      'Where to send the user to authorize (OAuth2 tools while `pending`; valid for 10 minutes, POST /v1/tools/{id}/authorize gives a new one); "" when no authorization URL applies.',
    example: '',
  })
  oauth2_url!: string;
  @OrganizationIdProperty() organization_id!: string;
  @CreatedByProperty() created_by!: string;
  @ApiProperty({ type: 'integer', format: 'date-time', example: 1763800000000 })
  created_at!: number;
  @ApiProperty({ type: 'integer', format: 'date-time', example: 1763800000000 })
  updated_at!: number;
}

export class ListToolsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ description: 'Only the tools attached to this agent.' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  agent_id?: string;
}

export class ToolPageDto {
  @ApiProperty({
    type: [ToolDto],
    description:
      'Newest first. A page also stops before about 1 MiB of params: it may hold fewer than `limit` items although more follow; the next page starts at `offset + items.length`.',
  })
  items!: ToolDto[];
  @ApiProperty({ type: 'integer', example: 0 }) offset!: number;
  @ApiProperty({ type: 'integer', example: 1 }) total_count!: number;
}

export class ListToolSpecsQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({
    description: 'Only the tools of this toolkit (case-insensitive).',
    example: 'Google',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  toolkit?: string;

  @ApiPropertyOptional({ description: "Report requirements.met for this agent's attachments." })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  agent_id?: string;

  @ApiPropertyOptional({
    enum: TOOL_SCHEMA_FORMATS,
    default: 'openai',
    description: 'The form of formatted_schema.',
  })
  @IsOptionalNotNull()
  @IsIn(TOOL_SCHEMA_FORMATS)
  format?: ToolSchemaFormat;
}
