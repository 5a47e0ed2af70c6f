import Ajv from 'ajv';
import { z } from 'zod';
import { JSON_SCHEMA_TYPES } from './formatted-schema';
import {
  InnerValType,
  OUTPUT_MODES,
  OutputMode,
  PROVIDER_TYPES,
  ToolkitDefinition,
  VAL_TYPES,
  VALUE_BOUNDS,
  ValueSchemaDefinition,
} from './tool-specification.types';
import { strictObject, ZodProblem, zodProblems } from '../zod-issues';
import { unportablePatternConstructs } from './portable-pattern';

/**
 * The toolkit data file format (docs/toolkits.md) as a zod schema. Parse with
 * `parseToolkitFile`: every problem comes back as a path inside the file and a message.
 */

export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
// Semver 2.0 core with optional pre-release and build metadata.
const VERSION_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
// Secrets are usually injected as environment variables, so keep keys env-var shaped.
const SECRET_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROVIDER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const INNER_VAL_TYPES = VAL_TYPES.filter((t): t is InnerValType => t !== 'array');

/** How a wrong value reads in a message: `string "str"`, `an array`, `null`. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

const ARTICLES: Record<string, string> = { object: 'an object', array: 'an array' };

/** Messages for what the schemas below do not word themselves. */
const defaultMessages: z.core.$ZodErrorMap = (issue) => {
  if (issue.input === undefined && issue.code !== 'custom') return 'is required';
  if (issue.code === 'invalid_type') {
    return `expected ${ARTICLES[issue.expected] ?? `a ${issue.expected}`}, got ${describeValue(issue.input)}`;
  }
  return undefined;
};

const nonEmpty = (value: string) => value.trim() !== '';

/** A non-empty string matching `pattern`. */
const matching = (pattern: RegExp) =>
  z
    .string()
    .refine(nonEmpty, { error: 'must not be empty', abort: true })
    .regex(pattern, { error: (issue) => `"${String(issue.input)}" must match ${pattern}` });

const text = z.string().refine(nonEmpty, { error: 'must not be empty' });

/** A duplicate-free list of non-empty strings; `what` names its values in messages. */
const stringList = (what: string) =>
  z
    .array(z.unknown(), {
      error: (issue) =>
        issue.input === undefined ? undefined : `${what} must be an array of non-empty strings`,
    })
    .refine((values) => values.every((v) => typeof v === 'string' && nonEmpty(v)), {
      error: `${what} must be an array of non-empty strings`,
      abort: true,
    })
    .transform((values) => values as string[])
    .superRefine((values, ctx) => {
      const duplicate = values.find((v, i) => values.indexOf(v) !== i);
      if (duplicate !== undefined) {
        ctx.addIssue({ code: 'custom', message: `duplicate ${what} value "${duplicate}"` });
      }
    });

const oneOf = <T extends string>(what: string, values: readonly [T, ...T[]]) =>
  z.enum(values, {
    error: (issue) =>
      issue.input === undefined
        ? 'is required'
        : `${what} ${describeValue(issue.input)} (expected one of ${values.join(', ')})`,
  });

const nonNegativeInteger = z
  .int({ error: (issue) => `expected a non-negative integer, got ${describeValue(issue.input)}` })
  .min(0, {
    error: (issue) => `expected a non-negative integer, got number ${String(issue.input)}`,
  });
/** A regular expression as execution runs it (`u`), in what every LLM provider accepts. */
const regularExpression = z.string().superRefine((value, ctx) => {
  try {
    new RegExp(value, 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    ctx.addIssue({ code: 'custom', message: `not a regular expression: ${reason}` });
    return;
  }
  const unportable = unportablePatternConstructs(value);
  if (unportable.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `uses ${unportable.map((construct) => `a ${construct}`).join(' and ')}, which OpenAI refuses in a tool schema (for the whole request): write the pattern without it`,
    });
  }
});

const valueSchema = strictObject({
  val_type: oneOf('unknown val_type', VAL_TYPES),
  inner_val_type: z.unknown().optional(),
  enum: stringList('enum').optional(),
  max_length: nonNegativeInteger.optional(),
  pattern: regularExpression.optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  max_items: nonNegativeInteger.optional(),
})
  .superRefine((schema, ctx) => {
    const fail = (key: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [key], message });
    const valType = schema.val_type;
    const inner = schema.inner_val_type;
    if (inner === undefined) {
      if (valType === 'array') fail('inner_val_type', 'is required when val_type is "array"');
    } else if (valType !== 'array') {
      fail('inner_val_type', `is only allowed when val_type is "array" (got "${valType}")`);
    } else if (!(INNER_VAL_TYPES as readonly unknown[]).includes(inner)) {
      fail(
        'inner_val_type',
        `unknown inner_val_type ${describeValue(inner)} (expected one of ${INNER_VAL_TYPES.join(', ')})`,
      );
      return;
    }
    const elementType = valType === 'array' ? (inner as InnerValType | undefined) : valType;
    if (schema.enum !== undefined) {
      if (schema.enum.length === 0) fail('enum', 'enum must list at least one value');
      if (elementType !== undefined && elementType !== 'string') {
        fail('enum', 'enum is only allowed on string values or arrays of strings');
      }
    }
    // max_length and pattern bound strings, minimum and maximum numbers, max_items arrays.
    const isNumeric = elementType === 'integer' || elementType === 'number';
    const applies: Record<(typeof VALUE_BOUNDS)[number], boolean> = {
      max_length: elementType === 'string',
      pattern: elementType === 'string',
      minimum: isNumeric,
      maximum: isNumeric,
      max_items: valType === 'array',
    };
    for (const key of VALUE_BOUNDS) {
      if (schema[key] !== undefined && !applies[key]) {
        const kind = valType === 'array' ? `an array of ${elementType}` : valType;
        fail(key, `${key} does not apply to ${kind} values`);
      }
    }
    const { minimum, maximum } = schema;
    if (minimum !== undefined && maximum !== undefined && minimum > maximum) {
      fail('minimum', `minimum ${minimum} is above maximum ${maximum}`);
    }
  })
  .transform((schema) => schema as ValueSchemaDefinition);

const oauth2Requirement = strictObject({
  // An empty list is fine: the provider's default grant is enough for some tools.
  scopes: stringList('scope'),
});

const secrets = z
  .array(strictObject({ key: matching(SECRET_KEY_PATTERN) }))
  .superRefine((list, ctx) => {
    const keys = list.map((s) => s.key);
    const duplicate = keys.find((k, i) => keys.indexOf(k) !== i);
    if (duplicate !== undefined) {
      ctx.addIssue({ code: 'custom', message: `duplicate secret key "${duplicate}"` });
    }
  });

const providerType = oneOf('unsupported provider_type', PROVIDER_TYPES);

const toolkitRequirements = strictObject({
  authorization: strictObject({
    provider_id: matching(PROVIDER_ID_PATTERN),
    provider_type: providerType,
    oauth2: oauth2Requirement.optional(),
  }).optional(),
  secrets: secrets.optional(),
});

/** A tool may override the provider; otherwise it inherits the toolkit's. */
const toolRequirements = strictObject({
  authorization: strictObject({
    provider_id: matching(PROVIDER_ID_PATTERN).optional(),
    provider_type: providerType.optional(),
    oauth2: oauth2Requirement.optional(),
  }).optional(),
  secrets: secrets.optional(),
});

/** Duplicate names, compared case-insensitively as lookups are. */
function findDuplicate(names: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    const key = name.toLowerCase();
    if (seen.has(key)) return name;
    seen.add(key);
  }
  return undefined;
}

const parameter = strictObject({
  name: matching(NAME_PATTERN),
  description: text,
  required: z.boolean(),
  inferrable: z.boolean().optional(),
  value_schema: valueSchema,
});

// Strict, so that a misspelt or unsupported keyword (`requried`, `format`) is a catalog error
// rather than a constraint that silently checks nothing. Only compiled, never kept: a schema
// with an `$id` may be loaded again (every catalog load of the process compiles it).
const outputSchemas = new Ajv({ strict: true, allErrors: true, addUsedSchema: false });

/** A JSON Schema that compiles; the output checks that its type is the value's. */
const jsonSchema = z
  .record(z.string(), z.unknown(), {
    error: (issue) =>
      issue.input === undefined
        ? undefined
        : `expected an object, got ${describeValue(issue.input)}`,
  })
  .superRefine((schema, ctx) => {
    try {
      outputSchemas.compile(schema);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      ctx.addIssue({ code: 'custom', message: `not a JSON Schema: ${reason}` });
    }
  });

const annotations = strictObject({
  title: text,
  readOnlyHint: z.boolean(),
  destructiveHint: z.boolean(),
  idempotentHint: z.boolean(),
  openWorldHint: z.boolean(),
});

const output = strictObject({
  description: text,
  available_modes: z
    .array(z.unknown())
    .min(1, { error: 'must list at least one mode' })
    .refine((modes) => modes.every((m) => (OUTPUT_MODES as readonly unknown[]).includes(m)), {
      error: `modes must be among ${OUTPUT_MODES.join(', ')}`,
      abort: true,
    })
    .refine((modes) => new Set(modes).size === modes.length, { error: 'duplicate mode' })
    .transform((modes) => modes as OutputMode[]),
  value_schema: valueSchema,
  json_schema: jsonSchema.optional(),
}).superRefine((out, ctx) => {
  const expected = JSON_SCHEMA_TYPES[out.value_schema.val_type];
  if (out.json_schema !== undefined && out.json_schema.type !== expected) {
    ctx.addIssue({
      code: 'custom',
      path: ['json_schema', 'type'],
      message: `must be "${expected}", the type of val_type "${out.value_schema.val_type}"`,
    });
  }
});

const tool = strictObject({
  name: matching(NAME_PATTERN),
  description: text,
  parameters: z.array(parameter).superRefine((parameters, ctx) => {
    const duplicate = findDuplicate(parameters.map((p) => p.name));
    if (duplicate !== undefined) {
      ctx.addIssue({ code: 'custom', message: `duplicate parameter name "${duplicate}"` });
    }
  }),
  output,
  requirements: toolRequirements.optional(),
  annotations: annotations.optional(),
});

const toolkit = strictObject({
  name: matching(NAME_PATTERN),
  description: text,
  version: z
    .string()
    .refine(nonEmpty, { error: 'must not be empty', abort: true })
    .regex(VERSION_PATTERN, {
      error: (issue) =>
        `"${String(issue.input)}" is not a semantic version such as 1.0.0 or 2.1.0-beta.1`,
    }),
  requirements: toolkitRequirements.optional(),
  tools: z
    .array(tool)
    .min(1, { error: 'a toolkit must declare at least one tool' })
    .superRefine((tools, ctx) => {
      const duplicate = findDuplicate(tools.map((t) => t.name));
      if (duplicate !== undefined) {
        ctx.addIssue({ code: 'custom', message: `duplicate tool name "${duplicate}"` });
      }
    }),
}).superRefine((kit, ctx) => {
  if (kit.requirements?.authorization !== undefined) return;
  kit.tools.forEach((t, i) => {
    const auth = t.requirements?.authorization;
    if (auth !== undefined && auth.provider_id === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['tools', i, 'requirements', 'authorization', 'provider_id'],
        message: 'is required because the toolkit declares no authorization provider',
      });
    }
  });
});

/**
 * A toolkit data file as read, before it is checked. Declared here rather than in the loader,
 * which imports every built-in toolkit: a toolkit that names this type must not import it back.
 */
export interface ToolkitSource {
  /** Used in error messages only. */
  file: string;
  data: unknown;
}

/** The toolkit in `data`, or every problem found in it. */
export function parseToolkitFile(
  data: unknown,
): { toolkit: ToolkitDefinition } | { issues: ZodProblem[] } {
  const result = toolkit.safeParse(data, { reportInput: true, error: defaultMessages });
  if (!result.success) return { issues: zodProblems(result.error) };
  return { toolkit: result.data satisfies ToolkitDefinition };
}
