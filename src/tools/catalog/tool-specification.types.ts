/**
 * Types of the built-in tool catalog: the toolkit data files (each toolkit folder's
 * `toolkit.json`, and those of `catalog/toolkits/`), the resolved in-memory specification, and the wire shapes served by GET /v1/tools/specs.
 * Field names inside definitions stay snake_case because they are copied to the wire verbatim.
 */

export const VAL_TYPES = ['string', 'integer', 'number', 'boolean', 'json', 'array'] as const;
export type ValType = (typeof VAL_TYPES)[number];

/** Arrays of arrays are not expressible in the Arcade value schema, so the inner type excludes them. */
export type InnerValType = Exclude<ValType, 'array'>;

export const OUTPUT_MODES = ['value', 'error', 'null'] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

export const PROVIDER_TYPES = ['oauth2'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

// ---------------------------------------------------------------------------
// Definition files (one toolkit per JSON file)
// ---------------------------------------------------------------------------

export interface ValueSchemaDefinition {
  val_type: ValType;
  /** Required when val_type is 'array', forbidden otherwise. */
  inner_val_type?: InnerValType;
  /** Allowed values; only on strings or arrays of strings. */
  enum?: string[];
  // Bounds, enforced on execution and published in the formatted JSON Schema. On an array,
  // max_length, pattern, minimum and maximum bound its elements (as enum does).
  /** Most characters (Unicode code points, as JSON Schema's `maxLength` counts) of a string. */
  max_length?: number;
  /** A regular expression (Unicode mode) the string must match; as in JSON Schema, not anchored. */
  pattern?: string;
  minimum?: number;
  maximum?: number;
  /** Most elements of an array. */
  max_items?: number;
}

/** The bounds a value schema may carry, in the order they are read and published. */
export const VALUE_BOUNDS = ['max_length', 'pattern', 'minimum', 'maximum', 'max_items'] as const;

export interface ParameterDefinition {
  name: string;
  description: string;
  required: boolean;
  /** Whether an LLM may fill the value from context; defaults to true (Arcade semantics). */
  inferrable?: boolean;
  value_schema: ValueSchemaDefinition;
}

export interface OutputDefinition {
  description: string;
  available_modes: OutputMode[];
  value_schema: ValueSchemaDefinition;
  /**
   * The JSON Schema of the value the executor returns (draft-07 keywords, no `format`), whose
   * `type` is the value schema's; the `mcp` format publishes it as the tool's `outputSchema`.
   */
  json_schema?: Record<string, unknown>;
}

/**
 * MCP's ToolAnnotations (revision 2025-06-18), under MCP's own names since they are copied to the
 * `mcp` format verbatim. Hints, every one stated: MCP's defaults (not read-only, destructive, not
 * idempotent, open world) are the worst case and say nothing about the tool.
 */
export interface ToolAnnotationsDefinition {
  title: string;
  /** It does not change its environment (a read, a calculation). */
  readOnlyHint: boolean;
  /** It may overwrite or delete, as opposed to only adding. Meaningful when not read-only. */
  destructiveHint: boolean;
  /** The same call again has no further effect. Meaningful when not read-only. */
  idempotentHint: boolean;
  /** It reaches entities outside agentline (a provider, a person's phone). */
  openWorldHint: boolean;
}

export interface OAuth2RequirementDefinition {
  scopes: string[];
}

export interface SecretRequirementDefinition {
  key: string;
}

export interface ToolkitAuthorizationDefinition {
  provider_id: string;
  provider_type: ProviderType;
  /** Scopes every tool of the toolkit needs; tool scopes are added to these. */
  oauth2?: OAuth2RequirementDefinition;
}

/** A tool may override the provider; otherwise it inherits the toolkit's. */
export interface ToolAuthorizationDefinition {
  provider_id?: string;
  provider_type?: ProviderType;
  oauth2?: OAuth2RequirementDefinition;
}

export interface ToolkitRequirementsDefinition {
  authorization?: ToolkitAuthorizationDefinition;
  secrets?: SecretRequirementDefinition[];
}

export interface ToolRequirementsDefinition {
  authorization?: ToolAuthorizationDefinition;
  secrets?: SecretRequirementDefinition[];
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: ParameterDefinition[];
  output: OutputDefinition;
  requirements?: ToolRequirementsDefinition;
  annotations?: ToolAnnotationsDefinition;
}

export interface ToolkitDefinition {
  name: string;
  description: string;
  version: string;
  requirements?: ToolkitRequirementsDefinition;
  tools: ToolDefinition[];
}

// ---------------------------------------------------------------------------
// Dynamic toolkits (added at run time, e.g. from MCP servers)
// ---------------------------------------------------------------------------

/** Where a tool comes from: a catalog data file, or a tool of an operator-configured MCP server. */
export type ToolOrigin =
  | { kind: 'builtin' }
  /**
   * `server` is the configured server id, `tool` the tool's original MCP name; `outputSchema` and
   * `annotations` are the server's own, passed on as they are in the `mcp` format.
   */
  | {
      kind: 'mcp';
      server: string;
      tool: string;
      outputSchema?: Record<string, unknown>;
      annotations?: Record<string, unknown>;
    };

/** A tool handed to `ToolCatalog.setDynamicToolkits`; without an origin it counts as built-in. */
export interface DynamicToolDefinition extends ToolDefinition {
  origin?: ToolOrigin;
}

/** Any `ToolkitDefinition` qualifies; the origin stays in memory and is never read from files. */
export interface DynamicToolkitDefinition extends Omit<ToolkitDefinition, 'tools'> {
  tools: DynamicToolDefinition[];
}

// ---------------------------------------------------------------------------
// Resolved specification (toolkit requirements merged into each tool)
// ---------------------------------------------------------------------------

export interface ToolkitInfo {
  name: string;
  description: string;
  version: string;
}

export interface ResolvedAuthorizationRequirement {
  provider_id: string;
  provider_type: ProviderType;
  scopes: string[];
}

export interface ResolvedRequirements {
  authorization?: ResolvedAuthorizationRequirement;
  secrets: SecretRequirementDefinition[];
}

/** A parameter with defaults applied. */
export interface ParameterSpecification extends ParameterDefinition {
  inferrable: boolean;
}

export interface ToolSpecificationDefinition {
  name: string;
  /** `Toolkit.Tool` */
  qualifiedName: string;
  /** `Toolkit.Tool@<toolkit version>` */
  fullyQualifiedName: string;
  description: string;
  parameters: ParameterSpecification[];
  output: OutputDefinition;
  requirements: ResolvedRequirements;
  toolkit: ToolkitInfo;
  origin: ToolOrigin;
  annotations?: ToolAnnotationsDefinition;
}

// ---------------------------------------------------------------------------
// Formatted schemas (LLM function-calling shapes)
// ---------------------------------------------------------------------------

export type JsonSchemaType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';

/** The JSON Schema keywords a value schema's bounds publish as. */
export interface JsonSchemaBounds {
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
}

export interface JsonSchemaItems extends JsonSchemaBounds {
  type: JsonSchemaType;
  enum?: string[];
}

export interface JsonSchemaProperty extends JsonSchemaBounds {
  type: JsonSchemaType;
  description: string;
  enum?: string[];
  items?: JsonSchemaItems;
  maxItems?: number;
}

// A type, not an interface: so it is assignable to the SDKs' open schema types (Anthropic's
// `Tool.InputSchema` has an index signature, which an interface never satisfies).
export type ToolInputJsonSchema = {
  type: 'object';
  properties: Record<string, JsonSchemaProperty>;
  required: string[];
  additionalProperties: false;
};

/**
 * A parameter as OpenAI's strict mode takes it: listed in `required` even when optional, which
 * then also accepts null; no `maxLength` (not among the keywords strict mode supports).
 */
export interface OpenAiStrictProperty extends Omit<
  JsonSchemaProperty,
  'type' | 'enum' | 'maxLength' | 'items'
> {
  type: JsonSchemaType | [JsonSchemaType, 'null'];
  enum?: (string | null)[];
  items?: Omit<JsonSchemaItems, 'maxLength'>;
}

export interface OpenAiStrictParameters {
  type: 'object';
  properties: Record<string, OpenAiStrictProperty>;
  required: string[];
  additionalProperties: false;
}

export interface OpenAiFunctionTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    /** True wherever the tool's parameters fit strict mode (every one but free-form JSON objects). */
    strict: boolean;
    parameters: ToolInputJsonSchema | OpenAiStrictParameters;
  };
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ToolInputJsonSchema;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: ToolInputJsonSchema;
  /**
   * The object its `structuredContent` matches: the output's `json_schema` (wrapped as
   * `{result}` when the value is not an object, see `toMcpStructuredContent`), or an MCP server's
   * own output schema.
   */
  outputSchema?: Record<string, unknown>;
  /** The catalog's, or an MCP server's own (title, readOnlyHint…). */
  annotations?: Record<string, unknown>;
}

export const TOOL_SCHEMA_FORMATS = ['openai', 'anthropic', 'mcp'] as const;
export type ToolSchemaFormat = (typeof TOOL_SCHEMA_FORMATS)[number];

export type FormattedToolSchema = OpenAiFunctionTool | AnthropicTool | McpTool;

// ---------------------------------------------------------------------------
// Requirement state (computed by the caller) and the response item
// ---------------------------------------------------------------------------

export type AuthorizationStatus = 'pending' | 'completed' | 'failed' | 'not_started';

export interface AuthorizationState {
  /** Authorization record id; when absent the provider id is reported. */
  id?: string;
  status: AuthorizationStatus;
  status_reason: string;
  token_status: string;
}

/**
 * What the caller knows about the agent/user context. An empty object (no context) reports
 * every requirement as unmet: authorization 'not_started', secrets missing.
 */
export interface RequirementState {
  authorization?: AuthorizationState;
  /** Keys of the secrets that are configured for the caller. */
  configuredSecrets?: readonly string[] | ReadonlySet<string>;
}

export type ValueSchemaResponse = ValueSchemaDefinition;

export interface ParameterResponse {
  name: string;
  description: string;
  required: boolean;
  inferrable: boolean;
  value_schema: ValueSchemaResponse;
}

export interface AuthorizationRequirementResponse {
  id: string;
  provider_id: string;
  provider_type: ProviderType;
  status: AuthorizationStatus;
  status_reason: string;
  token_status: string;
  oauth2: { scopes: string[] };
}

export interface SecretRequirementResponse {
  key: string;
  met: boolean;
  status_reason: string;
}

export interface RequirementsResponse {
  met: boolean;
  authorization?: AuthorizationRequirementResponse;
  secrets: SecretRequirementResponse[];
}

export interface ToolSpecificationResponse {
  name: string;
  qualified_name: string;
  fully_qualified_name: string;
  description: string;
  formatted_schema: FormattedToolSchema;
  input: { parameters: ParameterResponse[] };
  output: { description: string; available_modes: OutputMode[]; value_schema: ValueSchemaResponse };
  requirements: RequirementsResponse;
  toolkit: ToolkitInfo;
}
