import {
  AnthropicTool,
  FormattedToolSchema,
  JsonSchemaBounds,
  JsonSchemaProperty,
  JsonSchemaType,
  McpTool,
  OpenAiFunctionTool,
  ParameterDefinition,
  ToolInputJsonSchema,
  ToolSchemaFormat,
  ToolSpecificationDefinition,
  ValType,
  ValueSchemaDefinition,
} from './tool-specification.types';

/** What OpenAI and Anthropic accept as a function/tool name. */
export const FORMATTED_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** `Google.SendEmail` -> `Google_SendEmail`: dots are not allowed in LLM function names. */
export function formattedToolName(qualifiedName: string): string {
  return qualifiedName.replace(/\./g, '_');
}

const JSON_SCHEMA_TYPES: Record<ValType, JsonSchemaType> = {
  string: 'string',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  json: 'object',
  array: 'array',
};

/** The single JSON Schema builder behind every formatted shape. */
export function toToolInputJsonSchema(spec: {
  parameters: readonly ParameterDefinition[];
}): ToolInputJsonSchema {
  const properties: Record<string, JsonSchemaProperty> = {};
  for (const param of spec.parameters) {
    const schema = param.value_schema;
    const { val_type: valType, inner_val_type: inner, enum: values } = schema;
    const property: JsonSchemaProperty = {
      type: JSON_SCHEMA_TYPES[valType],
      description: param.description,
    };
    if (valType === 'array' && inner !== undefined) {
      // For arrays the allowed values and bounds constrain the elements, not the array itself.
      property.items = {
        type: JSON_SCHEMA_TYPES[inner],
        ...(values && { enum: [...values] }),
        ...jsonSchemaBounds(schema, inner),
      };
      if (schema.max_items !== undefined) property.maxItems = schema.max_items;
    } else {
      if (values) property.enum = [...values];
      Object.assign(property, jsonSchemaBounds(schema, valType));
    }
    properties[param.name] = property;
  }
  return {
    type: 'object',
    properties,
    required: spec.parameters.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

/**
 * The value schema's element bounds under their JSON Schema names. An integer is always bounded
 * to the safe range (an MCP server's integers come unbounded): beyond it, JSON numbers lose
 * digits in every JavaScript runtime, so the value the tool received would not be the one sent.
 */
function jsonSchemaBounds(schema: ValueSchemaDefinition, type: ValType): JsonSchemaBounds {
  const integer = type === 'integer';
  const minimum = integer
    ? Math.max(schema.minimum ?? -Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER)
    : schema.minimum;
  const maximum = integer
    ? Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
    : schema.maximum;
  return {
    ...(schema.max_length !== undefined && { maxLength: schema.max_length }),
    ...(schema.pattern !== undefined && { pattern: schema.pattern }),
    ...(minimum !== undefined && { minimum }),
    ...(maximum !== undefined && { maximum }),
  };
}

export function toOpenAiFunction(spec: ToolSpecificationDefinition): OpenAiFunctionTool {
  return {
    type: 'function',
    function: {
      name: formattedToolName(spec.qualifiedName),
      description: spec.description,
      parameters: toToolInputJsonSchema(spec),
    },
  };
}

export function toAnthropicTool(spec: ToolSpecificationDefinition): AnthropicTool {
  return {
    name: formattedToolName(spec.qualifiedName),
    description: spec.description,
    input_schema: toToolInputJsonSchema(spec),
  };
}

export function toMcpTool(spec: ToolSpecificationDefinition): McpTool {
  return {
    name: formattedToolName(spec.qualifiedName),
    description: spec.description,
    inputSchema: toToolInputJsonSchema(spec),
  };
}

export function formatToolSchema(
  spec: ToolSpecificationDefinition,
  format: ToolSchemaFormat,
): FormattedToolSchema {
  switch (format) {
    case 'openai':
      return toOpenAiFunction(spec);
    case 'anthropic':
      return toAnthropicTool(spec);
    case 'mcp':
      return toMcpTool(spec);
  }
}
