import Ajv from 'ajv';
import { formatToolSchema } from './formatted-schema';
import { loadToolCatalog } from './tool-catalog';
import { validateToolInput } from '../execution/tool-input.validator';
import type { ParameterDefinition } from './tool-specification.types';

/**
 * OpenAI's published rules for Structured Outputs / function calling with `strict: true`
 * ("Supported schemas"): the root is an object; every object lists all its properties in
 * `required` and sets `additionalProperties: false`; optional values are expressed as a union
 * with null; only these keywords are supported; at most 10 levels of nesting and 5,000 properties;
 * an enum holds at most 1,000 values.
 */
const SUPPORTED = new Set([
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

type Schema = Record<string, unknown>;

function strictModeViolations(root: Schema): string[] {
  const problems: string[] = [];
  let properties = 0;
  if (root.type !== 'object') problems.push('the root is not an object');
  const visit = (schema: Schema, path: string, depth: number) => {
    if (depth > 10) problems.push(`${path}: nested deeper than 10 levels`);
    for (const keyword of Object.keys(schema)) {
      if (!SUPPORTED.has(keyword)) problems.push(`${path}: unsupported keyword ${keyword}`);
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (Array.isArray(schema.enum) && schema.enum.length > 1000) {
      problems.push(`${path}: an enum of more than 1,000 values`);
    }
    if (types.includes('object')) {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (schema.additionalProperties !== false) {
        problems.push(`${path}: additionalProperties is not false`);
      }
      const required = new Set((schema.required ?? []) as string[]);
      for (const name of Object.keys(props)) {
        properties++;
        if (!required.has(name)) problems.push(`${path}.${name}: not in required`);
        visit(props[name], `${path}.${name}`, depth + 1);
      }
    }
    if (schema.items) visit(schema.items as Schema, `${path}[]`, depth + 1);
  };
  visit(root, '$', 1);
  if (properties > 5000) problems.push('more than 5,000 properties');
  return problems;
}

describe('OpenAI strict mode', () => {
  const specs = loadToolCatalog().list({ offset: 0, limit: 1000 }).items;

  it('the checker refuses what the rules refuse', () => {
    expect(
      strictModeViolations({
        type: 'object',
        properties: { a: { type: 'string', maxLength: 3 }, b: { type: 'object' } },
        required: ['a'],
      }),
    ).toEqual([
      '$: additionalProperties is not false',
      '$.a: unsupported keyword maxLength',
      '$.b: not in required',
      '$.b: additionalProperties is not false',
    ]);
  });

  it.each(specs.map((spec) => [spec.qualifiedName, spec] as const))(
    '%s: strict wherever its parameters allow, and then within the rules',
    (_name, spec) => {
      const formatted = formatToolSchema(spec, 'openai');
      if (!('function' in formatted)) throw new Error('not an OpenAI function');
      const freeForm = spec.parameters.some((param) => param.value_schema.val_type === 'json');
      expect(formatted.function.strict).toBe(!freeForm);
      if (!formatted.function.strict) return;
      expect(strictModeViolations(formatted.function.parameters as unknown as Schema)).toEqual([]);
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
