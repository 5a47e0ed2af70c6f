import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { NAME_PATTERN } from '../catalog/toolkit-file.schema';
import {
  DynamicToolDefinition,
  DynamicToolkitDefinition,
  InnerValType,
  ParameterDefinition,
  ValueSchemaDefinition,
} from '../catalog/tool-specification.types';
import { McpServerConfig } from './mcp-server.config';

/**
 * Turns what an MCP server says about itself (initialize, tools/list) into a catalog toolkit,
 * and a tools/call result into a value or an error. Pure functions; docs/toolkits.md describes
 * the rules for operators.
 */

/** What initialize told us about the server. */
export interface McpServerIdentity {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
}

export interface McpToolkitMapping {
  /** Undefined when the server offers no tool we can call. */
  toolkit: DynamicToolkitDefinition | undefined;
  /** Per original MCP tool name: catalog parameter name → the tool's own property name. */
  argumentNames: ReadonlyMap<string, ReadonlyMap<string, string>>;
  skipped: { tool: string; reason: string }[];
}

export type McpCallOutcome = { value: unknown } | { error: string };

const MAX_TOOLKIT_NAME_LENGTH = 40;
// `Toolkit_Tool` must fit the 64 characters LLM providers accept as a function name.
const MAX_FUNCTION_NAME_LENGTH = 64;
// Toolkit descriptions are repeated in every spec of the toolkit; long instructions are cut.
const MAX_TOOLKIT_DESCRIPTION_LENGTH = 1000;
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/**
 * `mcp-servers/everything` → `McpServersEverything`: words split on anything but ASCII letters
 * and digits, accents dropped, each word capitalised. A leading digit gets `prefix` in front.
 * Returns undefined when nothing usable is left.
 */
export function pascalCaseName(raw: string, prefix: string): string | undefined {
  const words = raw
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  if (words.length === 0) return undefined;
  const name = words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
  return /^[0-9]/.test(name) ? `${prefix}${name}` : name;
}

/** The configured `toolkit`, else the server's own name, else its configured id, PascalCased. */
export function toolkitNameFor(
  serverName: string,
  config: Pick<McpServerConfig, 'id' | 'toolkit'>,
): string {
  if (config.toolkit !== undefined) return config.toolkit;
  const name = pascalCaseName(serverName, 'Mcp') ?? pascalCaseName(config.id, 'Mcp') ?? 'McpServer';
  return name.slice(0, MAX_TOOLKIT_NAME_LENGTH);
}

/** `1.2.3` as is, `v1.2` → `1.2.0`; anything else → `0.0.0`. */
export function toolkitVersionFor(version: string | undefined): string {
  const trimmed = (version ?? '').trim().replace(/^v/i, '');
  if (SEMVER.test(trimmed)) return trimmed;
  const partial = /^(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?$/.exec(trimmed);
  return partial ? `${partial[1]}.${partial[2] ?? '0'}.0` : '0.0.0';
}

/**
 * Catalog names for MCP tool names: PascalCase (`get-sum` → `GetSum`), cut so that
 * `Toolkit_Tool` fits 64 characters, and made unique case-insensitively with `_2`, `_3`…
 * in the order of the original names, so the same list always yields the same names.
 */
export function toolNamesFor(toolkit: string, mcpNames: readonly string[]): Map<string, string> {
  const maxLength = MAX_FUNCTION_NAME_LENGTH - toolkit.length - 1;
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const original of [...new Set(mcpNames)].sort()) {
    const base = (pascalCaseName(original, 'Tool') ?? 'Tool').slice(0, maxLength);
    names.set(original, uniqueName(base, maxLength, taken));
  }
  return names;
}

/** Property names that already fit the catalog stay; others get `_` for what is not allowed. */
export function parameterNameFor(property: string): string {
  if (NAME_PATTERN.test(property)) return property;
  const replaced = property.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z]/.test(replaced) ? replaced : `p${replaced}`;
}

function uniqueName(base: string, maxLength: number, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const suffix = `_${n}`;
    name = `${base.slice(0, maxLength - suffix.length)}${suffix}`;
  }
  taken.add(name.toLowerCase());
  return name;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Only a non-empty list of distinct non-empty strings (or a string `const`) is an enum here. */
function stringEnumOf(schema: Record<string, unknown>): string[] | undefined {
  const values = Array.isArray(schema.enum)
    ? schema.enum
    : typeof schema.const === 'string'
      ? [schema.const]
      : undefined;
  if (values === undefined || values.length === 0) return undefined;
  if (!values.every((v): v is string => typeof v === 'string' && v.trim() !== '')) return undefined;
  return new Set(values).size === values.length ? [...values] : undefined;
}

/** Combinators and references say "one of several shapes", which a single val_type cannot. */
function isComposite(schema: Record<string, unknown>): boolean {
  return ['anyOf', 'oneOf', 'allOf', 'not', '$ref', 'if'].some((key) => schema[key] !== undefined);
}

function innerValueSchema(items: unknown): Pick<ValueSchemaDefinition, 'inner_val_type' | 'enum'> {
  if (!isObject(items) || isComposite(items)) return { inner_val_type: 'json' };
  const values = stringEnumOf(items);
  const type = items.type ?? (values ? 'string' : undefined);
  const inner: InnerValType =
    type === 'string' || type === 'integer' || type === 'number' || type === 'boolean'
      ? type
      : 'json';
  return { inner_val_type: inner, ...(inner === 'string' && values && { enum: values }) };
}

/**
 * One JSON Schema property → an Arcade value schema. string, integer, number and boolean map
 * to themselves, object to json, array to array (items' type inside; object, nested array or
 * missing items → json); string enums are kept. Everything else (anyOf, $ref, type lists,
 * null, no type) is json.
 */
export function toValueSchema(schema: unknown): ValueSchemaDefinition {
  if (!isObject(schema) || isComposite(schema)) return { val_type: 'json' };
  const values = stringEnumOf(schema);
  const type = schema.type ?? (values ? 'string' : undefined);
  switch (type) {
    case 'string':
      return { val_type: 'string', ...(values && { enum: values }) };
    case 'integer':
      return { val_type: 'integer' };
    case 'number':
      return { val_type: 'number' };
    case 'boolean':
      return { val_type: 'boolean' };
    case 'array':
      return { val_type: 'array', ...innerValueSchema(schema.items) };
    default:
      return { val_type: 'json' };
  }
}

/** The parameters of an MCP tool's `inputSchema`, and the names to send its properties back as. */
export function toParameters(inputSchema: unknown): {
  parameters: ParameterDefinition[];
  argumentNames: Map<string, string>;
} {
  const properties =
    isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const required = new Set(
    isObject(inputSchema) && Array.isArray(inputSchema.required)
      ? inputSchema.required.filter((r): r is string => typeof r === 'string')
      : [],
  );
  const taken = new Set<string>();
  const parameters: ParameterDefinition[] = [];
  const argumentNames = new Map<string, string>();
  for (const [property, schema] of Object.entries(properties)) {
    const base = parameterNameFor(property);
    const name = uniqueName(base, Number.MAX_SAFE_INTEGER, taken);
    argumentNames.set(name, property);
    const description =
      (isObject(schema) && (nonEmptyString(schema.description) ?? nonEmptyString(schema.title))) ||
      `The "${property}" argument.`;
    parameters.push({
      name,
      description,
      required: required.has(property),
      inferrable: true,
      value_schema: toValueSchema(schema),
    });
  }
  return { parameters, argumentNames };
}

function toolDescription(tool: Tool, identity: McpServerIdentity): string {
  return (
    nonEmptyString(tool.description) ??
    nonEmptyString(tool.title) ??
    nonEmptyString(tool.annotations?.title) ??
    `Calls the "${tool.name}" tool of the MCP server "${identity.title ?? identity.name}".`
  );
}

function outputDescription(tool: Tool): string {
  const hints: string[] = [];
  const annotations = tool.annotations;
  if (annotations?.readOnlyHint === true) hints.push('read-only');
  else if (annotations?.destructiveHint === true) hints.push('may be destructive');
  if (annotations?.idempotentHint === true) hints.push('idempotent');
  if (annotations?.openWorldHint === true) hints.push('reaches outside systems');
  const label = nonEmptyString(tool.title) ?? nonEmptyString(annotations?.title) ?? tool.name;
  const shape = tool.outputSchema ? 'structured JSON result' : 'result';
  return `The ${shape} of "${label}"${hints.length > 0 ? ` (${hints.join(', ')})` : ''}.`;
}

function toolkitDescription(identity: McpServerIdentity): string {
  const instructions = nonEmptyString(identity.instructions);
  if (instructions === undefined) {
    return `Tools of the MCP server "${identity.title ?? identity.name}".`;
  }
  return instructions.length <= MAX_TOOLKIT_DESCRIPTION_LENGTH
    ? instructions
    : `${instructions.slice(0, MAX_TOOLKIT_DESCRIPTION_LENGTH - 1).trimEnd()}…`;
}

/**
 * One toolkit per server. Tools that need MCP tasks (`execution.taskSupport: "required"`) are
 * skipped: a plain tools/call cannot run them. Requirements stay empty: the operator configured
 * the server, credentials included, so an agent needs nothing more to use it.
 */
export function toMcpToolkit(
  config: Pick<McpServerConfig, 'id' | 'toolkit'>,
  identity: McpServerIdentity,
  tools: readonly Tool[],
): McpToolkitMapping {
  const skipped: McpToolkitMapping['skipped'] = [];
  const usable = tools.filter((tool) => {
    if (tool.execution?.taskSupport !== 'required') return true;
    skipped.push({ tool: tool.name, reason: 'it can only run as an MCP task' });
    return false;
  });
  const toolkitName = toolkitNameFor(identity.name, config);
  const names = toolNamesFor(
    toolkitName,
    usable.map((tool) => tool.name),
  );
  const argumentNames = new Map<string, ReadonlyMap<string, string>>();
  const definitions: DynamicToolDefinition[] = [];
  for (const tool of usable) {
    if (argumentNames.has(tool.name)) {
      skipped.push({ tool: tool.name, reason: 'the server lists this name twice' });
      continue;
    }
    const { parameters, argumentNames: toolArguments } = toParameters(tool.inputSchema);
    argumentNames.set(tool.name, toolArguments);
    definitions.push({
      name: names.get(tool.name) ?? tool.name,
      description: toolDescription(tool, identity),
      parameters,
      output: {
        description: outputDescription(tool),
        available_modes: ['value', 'error'],
        value_schema: { val_type: 'json' },
      },
      origin: {
        kind: 'mcp',
        server: config.id,
        tool: tool.name,
        ...(tool.outputSchema && { outputSchema: tool.outputSchema as Record<string, unknown> }),
        ...(tool.annotations && { annotations: tool.annotations as Record<string, unknown> }),
      },
    });
  }
  const toolkit: DynamicToolkitDefinition | undefined =
    definitions.length === 0
      ? undefined
      : {
          name: toolkitName,
          description: toolkitDescription(identity),
          version: toolkitVersionFor(identity.version),
          tools: definitions,
        };
  return { toolkit, argumentNames, skipped };
}

/** LLM arguments use catalog parameter names; the server expects its own property names. */
export function toMcpArguments(
  input: Record<string, unknown>,
  argumentNames: ReadonlyMap<string, string> | undefined,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) args[argumentNames?.get(key) ?? key] = value;
  return args;
}

function textsOf(content: readonly CallToolResult['content'][number][]): string[] {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
}

/**
 * A tools/call result as the catalog's output: `isError` → `{error}` with the text contents
 * joined; else `structuredContent` when present; else the text: one text block → that string
 * (never parsed: a tool that returns data says so with structuredContent), several → an array
 * of strings; anything with images, audio or resources → the content array as sent.
 */
export function toCallOutcome(result: CallToolResult): McpCallOutcome {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = textsOf(content);
  if (result.isError === true) {
    const message = texts.join('\n').trim();
    return { error: message === '' ? 'The tool reported an error without a message.' : message };
  }
  if (result.structuredContent !== undefined) return { value: result.structuredContent };
  if (content.length > 0 && texts.length === content.length) {
    return { value: texts.length === 1 ? texts[0] : texts };
  }
  return { value: content };
}
