import {
  AnthropicTool,
  FormattedToolSchema,
  JsonSchemaBounds,
  JsonSchemaProperty,
  JsonSchemaType,
  McpTool,
  OpenAiFunctionTool,
  OpenAiStrictParameters,
  OpenAiStrictProperty,
  OutputDefinition,
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

/** The JSON Schema `type` of each value type. */
export const JSON_SCHEMA_TYPES: Record<ValType, JsonSchemaType> = {
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

/**
 * OpenAI's function, with `strict: true` wherever strict mode can express the parameters: every
 * parameter is then in `required`, an optional one also accepting null (which agentline treats
 * as absent), and `maxLength` moves into the description, since strict mode does not support it
 * (the execution still enforces it). A free-form JSON parameter (`json`) has no properties to
 * list, so its tool stays non-strict.
 */
export function toOpenAiFunction(spec: ToolSpecificationDefinition): OpenAiFunctionTool {
  const parameters = toToolInputJsonSchema(spec);
  const strict = spec.parameters.every((param) => param.value_schema.val_type !== 'json');
  return {
    type: 'function',
    function: {
      name: formattedToolName(spec.qualifiedName),
      description: spec.description,
      strict,
      parameters: strict ? toOpenAiStrictParameters(parameters) : parameters,
    },
  };
}

function toOpenAiStrictParameters(schema: ToolInputJsonSchema): OpenAiStrictParameters {
  const required = new Set(schema.required);
  const properties: Record<string, OpenAiStrictProperty> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const { maxLength, items, type, enum: values, ...rest } = property;
    const limits = [
      maxLength !== undefined && `At most ${maxLength} characters.`,
      items?.maxLength !== undefined && `Each item at most ${items.maxLength} characters.`,
    ].filter((limit): limit is string => typeof limit === 'string');
    const optional = !required.has(name);
    properties[name] = {
      ...rest,
      description: [rest.description, ...limits].filter(Boolean).join(' '),
      type: optional ? [type, 'null'] : type,
      ...(values && { enum: optional ? [...values, null] : values }),
      ...(items && { items: withoutMaxLength(items) }),
    };
  }
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

function withoutMaxLength<T extends { maxLength?: number }>(value: T): Omit<T, 'maxLength'> {
  const { maxLength: _dropped, ...rest } = value;
  void _dropped;
  return rest;
}

export function toAnthropicTool(spec: ToolSpecificationDefinition): AnthropicTool {
  return {
    name: formattedToolName(spec.qualifiedName),
    description: spec.description,
    input_schema: toToolInputJsonSchema(spec),
  };
}

export function toMcpTool(spec: ToolSpecificationDefinition): McpTool {
  const { origin } = spec;
  const outputSchema = toMcpOutputSchema(spec);
  // An MCP server's tool keeps what its server said of its behaviour; a built-in one, the catalog's.
  const annotations = origin.kind === 'mcp' ? origin.annotations : spec.annotations;
  return {
    name: formattedToolName(spec.qualifiedName),
    description: spec.description,
    inputSchema: toToolInputJsonSchema(spec),
    ...(outputSchema && { outputSchema }),
    ...(annotations && { annotations: { ...annotations } }),
  };
}

/** The property a value that is not a JSON object is wrapped in, for MCP's `structuredContent`. */
export const MCP_RESULT_PROPERTY = 'result';

/**
 * MCP's `structuredContent` must be a JSON object: a catalog tool whose value is anything else (a
 * number, a string, an array, or possibly null) has it wrapped in `{result}`.
 */
function wrapsMcpOutput(output: OutputDefinition): boolean {
  return output.value_schema.val_type !== 'json' || output.available_modes.includes('null');
}

/**
 * The `outputSchema` of the `mcp` format: an MCP server's own, or the output's `json_schema`,
 * wrapped as `{result: <json_schema>}` when the value is not an object. None without either.
 */
export function toMcpOutputSchema(
  spec: ToolSpecificationDefinition,
): Record<string, unknown> | undefined {
  const { origin, output } = spec;
  if (origin.kind === 'mcp') return origin.outputSchema;
  const schema = output.json_schema;
  if (schema === undefined) return undefined;
  if (!wrapsMcpOutput(output)) return schema;
  const result = output.available_modes.includes('null')
    ? { anyOf: [schema, { type: 'null' }] }
    : schema;
  return {
    type: 'object',
    properties: { [MCP_RESULT_PROPERTY]: result },
    required: [MCP_RESULT_PROPERTY],
    additionalProperties: false,
  };
}

/**
 * A tool's output value as MCP's `structuredContent`, matching `toMcpOutputSchema`: the value
 * itself when it is the object the schema describes, else `{result: value}` (a catalog tool
 * whose value is not an object; an MCP server's tool that answered text, not structured content).
 */
export function toMcpStructuredContent(
  spec: Pick<ToolSpecificationDefinition, 'origin' | 'output'>,
  value: unknown,
): Record<string, unknown> {
  const wrapped = spec.origin.kind === 'builtin' && wrapsMcpOutput(spec.output);
  if (!wrapped && isJsonObject(value)) return value;
  return { [MCP_RESULT_PROPERTY]: value ?? null };
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
