import type { Tool as AnthropicSdkTool } from '@anthropic-ai/sdk/resources/messages';
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { formatToolSchema, FORMATTED_NAME_PATTERN, toAnthropicTool } from './formatted-schema';
import { unportablePatternConstructs } from './portable-pattern';
import { loadToolCatalog } from './tool-catalog';
import { validateToolInput } from '../execution/tool-input.validator';
import {
  TOOL_SCHEMA_FORMATS,
  type FormattedToolSchema,
  type ParameterDefinition,
  type ToolSchemaFormat,
} from './tool-specification.types';

/**
 * Every formatted schema of every catalog tool, in every format the API offers, as the provider
 * it is for reads it. One refused schema fails the whole request that lists it, not that tool.
 *
 * OpenAI's documented rules for `strict: true` ("Supported schemas",
 * https://platform.openai.com/docs/guides/structured-outputs#supported-schemas): the root is an
 * object, not anyOf; every object lists all its properties in `required` and sets
 * `additionalProperties: false`; optional values are a union with null; types string, number,
 * boolean, integer, object, array (null in unions), enum and anyOf; only these keywords
 * (strings: pattern, format; numbers: multipleOf, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum; arrays: minItems, maxItems), only these formats (date-time, time, date,
 * duration, email, hostname, ipv4, ipv6, uuid); up to 5,000 properties and 10 levels of nesting;
 * up to 1,000 enum values in the schema; 120,000 characters of property names, enum and const
 * values. Not on that page, but answered by the API: a `pattern` with a lookaround is refused
 * ("Invalid JSON schema: regex lookaround is not supported", vercel/ai#21037,
 * pydantic/pydantic-ai#5519), and one that Python's `re` cannot compile (`\p{…}`) is "not a
 * 'regex'" (BerriAI/litellm#40485), strict or not: portable-pattern.ts lists those constructs.
 *
 * Anthropic: `name` matches `^[a-zA-Z0-9_-]{1,64}$` and `input_schema` is a JSON Schema (draft
 * 2020-12) of `type: "object"` (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools);
 * the SDK's `Tool` type (a devDependency, types only) holds the shape at compile time.
 * MCP: the SDK's own Zod `ToolSchema` parses the tool (mcp-format.spec.ts checks the rest).
 */

const STRICT_KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'anyOf',
  'const',
  '$ref',
  '$defs',
  // strings
  'pattern',
  'format',
  // numbers
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  // arrays
  'minItems',
  'maxItems',
]);
const STRICT_TYPES = new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']);
const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

type Schema = Record<string, unknown>;

/** Each subschema of `schema` with the path it sits at, `schema` first. */
function* subschemas(schema: Schema, path = '$', depth = 1): Generator<[Schema, string, number]> {
  yield [schema, path, depth];
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [name, property] of Object.entries(properties)) {
    yield* subschemas(property, `${path}.${name}`, depth + 1);
  }
  if (schema.items) yield* subschemas(schema.items as Schema, `${path}[]`, depth + 1);
  for (const [index, branch] of ((schema.anyOf ?? []) as Schema[]).entries()) {
    yield* subschemas(branch, `${path}|${index}`, depth);
  }
}

/** What any provider refuses in a `pattern`, strict or not. */
function patternViolations(root: Schema): string[] {
  const problems: string[] = [];
  for (const [schema, path] of subschemas(root)) {
    if (typeof schema.pattern !== 'string') continue;
    for (const construct of unportablePatternConstructs(schema.pattern)) {
      problems.push(`${path}: pattern uses a ${construct}`);
    }
  }
  return problems;
}

function strictModeViolations(root: Schema): string[] {
  const problems: string[] = patternViolations(root);
  let properties = 0;
  let enumValues = 0;
  let text = 0;
  if (root.type !== 'object' || root.anyOf !== undefined)
    problems.push('the root is not an object');
  for (const [schema, path, depth] of subschemas(root)) {
    if (depth > 10) problems.push(`${path}: nested deeper than 10 levels`);
    for (const keyword of Object.keys(schema)) {
      if (!STRICT_KEYWORDS.has(keyword)) problems.push(`${path}: unsupported keyword ${keyword}`);
    }
    const types = schema.type === undefined ? [] : [schema.type].flat();
    for (const type of types) {
      if (!STRICT_TYPES.has(String(type)))
        problems.push(`${path}: unsupported type ${String(type)}`);
    }
    if (schema.format !== undefined && !STRICT_FORMATS.has(String(schema.format))) {
      problems.push(`${path}: unsupported format ${String(schema.format)}`);
    }
    if (Array.isArray(schema.enum)) {
      enumValues += schema.enum.length;
      text += schema.enum.reduce<number>((sum, value) => sum + String(value).length, 0);
    }
    if (types.includes('object')) {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (schema.additionalProperties !== false) {
        problems.push(`${path}: additionalProperties is not false`);
      }
      const required = new Set((schema.required ?? []) as string[]);
      for (const name of Object.keys(props)) {
        properties++;
        text += name.length;
        if (!required.has(name)) problems.push(`${path}.${name}: not in required`);
      }
    }
  }
  if (properties > 5000) problems.push('more than 5,000 properties');
  if (enumValues > 1000) problems.push('more than 1,000 enum values');
  if (text > 120_000) problems.push('more than 120,000 characters of names and values');
  return problems;
}

/** JSON Schema 2020-12 as the providers read it: unknown keywords are an error, not ignored. */
const draft2020 = new Ajv2020({ strict: true, allErrors: true });
const compiles2020 = (schema: Schema) => {
  draft2020.compile(schema);
  draft2020.removeSchema(schema);
};

const specs = loadToolCatalog().list({ offset: 0, limit: 1000 }).items;
const cases = specs.flatMap((spec) =>
  TOOL_SCHEMA_FORMATS.map((format) => [spec.qualifiedName, format, spec] as const),
);

/** The input schema of a formatted tool, whichever its format. */
function inputSchemaOf(formatted: FormattedToolSchema, format: ToolSchemaFormat): Schema {
  if (format === 'openai' && 'function' in formatted) {
    return formatted.function.parameters as unknown as Schema;
  }
  if (format === 'anthropic' && 'input_schema' in formatted) {
    return formatted.input_schema as unknown as Schema;
  }
  if (format === 'mcp' && 'inputSchema' in formatted) {
    return formatted.inputSchema as unknown as Schema;
  }
  throw new Error(`not a ${format} tool`);
}

describe('schemas every LLM provider accepts', () => {
  it('the OpenAI checker refuses what the rules refuse', () => {
    expect(
      strictModeViolations({
        type: 'object',
        properties: {
          a: { type: 'string', maxLength: 3 },
          b: { type: 'object' },
          c: { type: 'string', format: 'uri', pattern: '^(?!x)' },
          d: { type: ['tuple', 'null'] },
          e: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) },
        },
        required: ['a', 'c', 'd', 'e'],
      }),
    ).toEqual([
      '$.c: pattern uses a lookahead',
      '$: additionalProperties is not false',
      '$.b: not in required',
      '$.a: unsupported keyword maxLength',
      '$.b: additionalProperties is not false',
      '$.c: unsupported format uri',
      '$.d: unsupported type tuple',
      'more than 1,000 enum values',
    ]);
    expect(
      strictModeViolations({ anyOf: [{ type: 'object', properties: {}, required: [] }] }),
    ).toContain('the root is not an object');
  });

  it('covers every format the API offers, and every toolkit', () => {
    expect(TOOL_SCHEMA_FORMATS).toEqual(['openai', 'anthropic', 'mcp']);
    const toolkits = new Set(specs.map((spec) => spec.qualifiedName.split('.')[0]));
    expect([...toolkits]).toEqual(expect.arrayContaining(['Agentline', 'Github', 'Google']));
  });

  it.each(cases)('%s, %s: a tool the provider accepts', (_name, format, spec) => {
    const formatted = formatToolSchema(spec, format);
    const input = inputSchemaOf(formatted, format);
    // A JSON Schema every provider compiles, with no pattern any of them refuses.
    expect(() => compiles2020(input)).not.toThrow();
    expect(patternViolations(input)).toEqual([]);
    expect(input.type).toBe('object');
    if (format === 'openai' && 'function' in formatted) {
      expect(formatted.function.name).toMatch(FORMATTED_NAME_PATTERN);
      if (formatted.function.strict) expect(strictModeViolations(input)).toEqual([]);
    }
    if (format === 'anthropic' && 'input_schema' in formatted) {
      expect(formatted.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(Object.keys(formatted).sort()).toEqual(['description', 'input_schema', 'name']);
    }
    if (format === 'mcp') expect(ToolSchema.parse(formatted)).toEqual(formatted);
  });

  it("gives Anthropic's SDK the tool type it declares", () => {
    // Compile-time: a change of either side that breaks the SDK's Tool fails `npm run typecheck`.
    const tools: AnthropicSdkTool[] = specs.map(toAnthropicTool);
    expect(tools).toHaveLength(specs.length);
  });

  it.each(specs.map((spec) => [spec.qualifiedName, spec] as const))(
    '%s: OpenAI strict wherever its parameters allow',
    (_name, spec) => {
      const formatted = formatToolSchema(spec, 'openai');
      if (!('function' in formatted)) throw new Error('not an OpenAI function');
      const freeForm = spec.parameters.some((param) => param.value_schema.val_type === 'json');
      expect(formatted.function.strict).toBe(!freeForm);
    },
  );

  it('accepts, in strict form, the inputs execution accepts: absent optionals sent as null', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    /** A valid value of a parameter, when one is easy to make (no pattern to satisfy). */
    const valueOf = (schema: ParameterDefinition['value_schema']): unknown => {
      if (schema.enum) return schema.enum[0];
      switch (schema.val_type) {
        case 'string':
          return schema.pattern === undefined ? 'x' : undefined;
        case 'integer':
        case 'number':
          return schema.minimum ?? Math.min(0, schema.maximum ?? 0);
        case 'boolean':
          return true;
        case 'array':
          return [];
        default:
          return undefined;
      }
    };
    let checked = 0;
    for (const spec of specs) {
      const formatted = formatToolSchema(spec, 'openai');
      if (!('function' in formatted) || !formatted.function.strict) continue;
      const input: Record<string, unknown> = {};
      for (const param of spec.parameters) {
        input[param.name] = param.required ? valueOf(param.value_schema) : null;
      }
      if (Object.values(input).includes(undefined)) continue;
      expect(validateToolInput(spec, input).errors).toEqual([]);
      expect(ajv.compile(formatted.function.parameters)(input)).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('counts how many of the catalog are strict', () => {
    const strict = specs.filter((spec) => {
      const formatted = formatToolSchema(spec, 'openai');
      return 'function' in formatted && formatted.function.strict;
    });
    // Every tool but those with a free-form JSON parameter.
    expect(strict.length).toBe(
      specs.filter((spec) => spec.parameters.every((p) => p.value_schema.val_type !== 'json'))
        .length,
    );
    expect(strict.length).toBeGreaterThan(specs.length / 2);
  });
});
