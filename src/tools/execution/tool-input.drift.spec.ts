import Ajv from 'ajv';
import fc from 'fast-check';
import { formatToolSchema } from '../catalog/formatted-schema';
import { loadToolCatalog } from '../catalog/tool-catalog';
import {
  JsonSchemaItems,
  JsonSchemaProperty,
  OpenAiStrictParameters,
  TOOL_SCHEMA_FORMATS,
  ToolInputJsonSchema,
  ToolSchemaFormat,
  ToolSpecificationDefinition,
} from '../catalog/tool-specification.types';
import { toolInputValidator, validateToolInput } from './tool-input.validator';

/** The input schema inside a formatted tool, as the model receives it. */
function publishedSchema(
  spec: ToolSpecificationDefinition,
  format: ToolSchemaFormat,
): ToolInputJsonSchema | OpenAiStrictParameters {
  const formatted = formatToolSchema(spec, format);
  if ('function' in formatted) return formatted.function.parameters;
  return 'input_schema' in formatted ? formatted.input_schema : formatted.inputSchema;
}

/** OpenAI's strict rendering is checked on its own (provider-schemas.spec.ts); the others are the schema. */
const isStrict = (spec: ToolSpecificationDefinition, format: ToolSchemaFormat) => {
  const formatted = formatToolSchema(spec, format);
  return 'function' in formatted && formatted.function.strict;
};

/** Strings that match `pattern`; fast-check cannot generate lookaheads, so they filter instead. */
function matching(pattern: string): fc.Arbitrary<string> {
  const regexp = new RegExp(pattern, 'u');
  const withoutLookaheads = new RegExp(pattern.replace(/\(\?[!=][^)]*\)/g, ''), 'u');
  return fc.stringMatching(withoutLookaheads).filter((s) => regexp.test(s));
}

/** Values that satisfy `schema` most of the time (patterns and lengths may still disagree). */
function fitting(schema: JsonSchemaProperty | JsonSchemaItems): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string': {
      const text = schema.pattern ? matching(schema.pattern) : fc.string({ unit: 'grapheme' });
      return schema.maxLength === undefined ? text : text.map((s) => s.slice(0, schema.maxLength));
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'object':
      return fc.object({ maxDepth: 1 });
    case 'array': {
      const items = (schema as JsonSchemaProperty).items;
      const max = Math.min((schema as JsonSchemaProperty).maxItems ?? 5, 5);
      return fc.array(items ? fitting(items) : fc.anything(), { maxLength: max });
    }
  }
}

/** Any JSON value but null (an absent parameter, for execution), to break a schema. */
const wrong: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(fc.oneof(fc.integer(), fc.string())),
  fc.object({ maxDepth: 1 }),
);

/** Inputs near the schema: fitting values, some left out, some wrong, sometimes an extra key. */
function inputsFor(schema: ToolInputJsonSchema): fc.Arbitrary<Record<string, unknown>> {
  // Each parameter is left out or wrong less often when there are many (a send tool has two
  // dozen), so that some inputs are still wholly right.
  const sides = Math.max(9, 3 * Object.keys(schema.properties).length);
  const entries = Object.entries(schema.properties).map(([name, property]) =>
    fc
      .tuple(fc.nat(sides), fitting(property), wrong)
      .map(([dice, good, bad]) => [name, dice === 0 ? undefined : dice === 1 ? bad : good]),
  );
  return fc.tuple(fc.tuple(...entries), fc.boolean()).map(([values, extra]) => {
    const input: Record<string, unknown> = Object.fromEntries(
      values.filter(([, value]) => value !== undefined),
    );
    if (extra) input.not_a_parameter = 1;
    return input;
  });
}

describe('tool input validation enforces exactly the published schema', () => {
  const specs = loadToolCatalog().list({ offset: 0, limit: 1000 }).items;
  const independent = new Ajv({ allErrors: true });

  it.each(specs.map((spec) => [spec.qualifiedName, spec] as const))(
    '%s: the schema of every format is the one compiled',
    (_name, spec) => {
      for (const format of TOOL_SCHEMA_FORMATS) {
        if (isStrict(spec, format)) continue;
        expect(toolInputValidator(spec).schema).toEqual(publishedSchema(spec, format));
      }
      // Compiled once, not per call.
      expect(toolInputValidator(spec)).toBe(toolInputValidator(spec));
    },
  );

  it.each(specs.map((spec) => [spec.qualifiedName, spec] as const))(
    '%s: an input passes execution validation exactly when the published schema accepts it',
    (_name, spec) => {
      const schema = publishedSchema(spec, 'mcp') as ToolInputJsonSchema;
      const published = independent.compile(schema);
      let accepted = 0;
      fc.assert(
        fc.property(inputsFor(schema), (input) => {
          const verdict = published(input);
          if (verdict) accepted++;
          expect(validateToolInput(spec, input).errors.length === 0).toBe(verdict);
        }),
        { numRuns: 60 },
      );
      // Both ways were tried: the samples are not all refused.
      expect(accepted).toBeGreaterThan(0);
    },
  );
});
