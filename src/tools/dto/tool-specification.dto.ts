import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OUTPUT_MODES, VAL_TYPES } from '../catalog/tool-specification.types';

/** OpenAPI shapes of GET /v1/tools/specs; the values come from tool-specification.mapper.ts. */
export class ValueSchemaDto {
  @ApiProperty({ enum: VAL_TYPES }) val_type!: string;
  @ApiPropertyOptional({ enum: VAL_TYPES.filter((type) => type !== 'array') })
  inner_val_type?: string;
  @ApiPropertyOptional({ type: [String] }) enum?: string[];
  @ApiPropertyOptional({
    description: 'Most characters (code points) of a string, or of each string of an array.',
  })
  max_length?: number;
  @ApiPropertyOptional({
    description:
      'A regular expression (ECMA-262, Unicode mode; anchored with ^ and $ where the whole value must match) that a string, or each string of an array, matches.',
  })
  pattern?: string;
  @ApiPropertyOptional({ description: 'Least value of a number, or of each number of an array.' })
  minimum?: number;
  @ApiPropertyOptional({
    description: 'Greatest value of a number, or of each number of an array.',
  })
  maximum?: number;
  @ApiPropertyOptional({ description: 'Most elements of an array.' })
  max_items?: number;
}

export class ParameterDto {
  @ApiProperty({ example: 'city' }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() required!: boolean;
  @ApiProperty({ description: 'Whether an LLM may infer the value from the conversation.' })
  inferrable!: boolean;
  @ApiProperty({ type: ValueSchemaDto }) value_schema!: ValueSchemaDto;
}

export class ToolInputDto {
  @ApiProperty({ type: [ParameterDto] }) parameters!: ParameterDto[];
}

export class ToolOutputDto {
  @ApiProperty() description!: string;
  @ApiProperty({ enum: OUTPUT_MODES, isArray: true }) available_modes!: string[];
  @ApiProperty({ type: ValueSchemaDto }) value_schema!: ValueSchemaDto;
}

export class OAuth2RequirementDto {
  @ApiProperty({ type: [String] }) scopes!: string[];
}

export class AuthorizationRequirementDto {
  @ApiProperty() id!: string;
  @ApiProperty({ example: 'google' }) provider_id!: string;
  @ApiProperty({ example: 'oauth2' }) provider_type!: string;
  @ApiProperty({ enum: ['pending', 'completed', 'failed', 'not_started'] }) status!: string;
  @ApiProperty() status_reason!: string;
  @ApiProperty() token_status!: string;
  @ApiProperty({ type: OAuth2RequirementDto }) oauth2!: OAuth2RequirementDto;
}

export class SecretRequirementDto {
  @ApiProperty({ example: 'OPENWEATHER_API_KEY' }) key!: string;
  @ApiProperty() met!: boolean;
  @ApiProperty() status_reason!: string;
}

export class RequirementsDto {
  @ApiProperty({
    description:
      "True when nothing is needed, or (with agent_id) the agent's attachment is authorized.",
  })
  met!: boolean;
  @ApiPropertyOptional({ type: AuthorizationRequirementDto })
  authorization?: AuthorizationRequirementDto;
  @ApiProperty({ type: [SecretRequirementDto] }) secrets!: SecretRequirementDto[];
}

export class ToolkitDto {
  @ApiProperty({ example: 'Weather' }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ example: '1.0.0' }) version!: string;
}

export class ToolSpecificationDto {
  @ApiProperty({ example: 'GetCurrentWeather' }) name!: string;
  @ApiProperty({ example: 'Weather.GetCurrentWeather' }) qualified_name!: string;
  @ApiProperty({ example: 'Weather.GetCurrentWeather@1.0.0' }) fully_qualified_name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'OpenAI function-calling form by default: {type: "function", function: {name, description, strict, parameters}}, with strict: true wherever strict mode can express the parameters (every optional one then in required and nullable).',
  })
  formatted_schema!: object;
  @ApiProperty({ type: ToolInputDto }) input!: ToolInputDto;
  @ApiProperty({ type: ToolOutputDto }) output!: ToolOutputDto;
  @ApiProperty({ type: RequirementsDto }) requirements!: RequirementsDto;
  @ApiProperty({ type: ToolkitDto }) toolkit!: ToolkitDto;
}

export class ToolSpecificationPageDto {
  @ApiProperty({ type: [ToolSpecificationDto] }) items!: ToolSpecificationDto[];
  @ApiProperty({ type: 'integer', example: 0 }) offset!: number;
  @ApiProperty({ type: 'integer', example: 14 }) total_count!: number;
}
