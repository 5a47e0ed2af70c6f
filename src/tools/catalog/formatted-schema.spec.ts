import {
  FORMATTED_NAME_PATTERN,
  formatToolSchema,
  formattedToolName,
  toAnthropicTool,
  toMcpTool,
  toOpenAiFunction,
  toToolInputJsonSchema,
} from './formatted-schema';
import { ToolCatalog, loadToolCatalog } from './tool-catalog';
import { ToolSpecificationDefinition } from './tool-specification.types';

const kitchenSink = new ToolCatalog([
  {
    name: 'Kitchen',
    description: 'Every value type.',
    version: '1.2.3',
    tools: [
      {
        name: 'Sink',
        description: 'Takes one parameter of each type.',
        parameters: [
          {
            name: 's',
            description: 'A string.',
            required: true,
            value_schema: { val_type: 'string' },
          },
          {
            name: 'i',
            description: 'An integer.',
            required: true,
            value_schema: { val_type: 'integer' },
          },
          {
            name: 'n',
            description: 'A number.',
            required: false,
            value_schema: { val_type: 'number' },
          },
          {
            name: 'b',
            description: 'A boolean.',
            required: false,
            value_schema: { val_type: 'boolean' },
          },
          {
            name: 'j',
            description: 'A JSON object.',
            required: false,
            value_schema: { val_type: 'json' },
          },
          {
            name: 'a',
            description: 'Integers.',
            required: true,
            value_schema: { val_type: 'array', inner_val_type: 'integer' },
          },
          {
            name: 'e',
            description: 'A choice.',
            required: false,
            value_schema: { val_type: 'string', enum: ['x', 'y'] },
          },
          {
            name: 'ae',
            description: 'Several choices.',
            required: false,
            value_schema: { val_type: 'array', inner_val_type: 'string', enum: ['p', 'q'] },
          },
        ],
        output: {
          description: 'Nothing useful.',
          available_modes: ['null'],
          value_schema: { val_type: 'json' },
        },
      },
    ],
  },
]);
const sink = kitchenSink.find('Kitchen.Sink') as ToolSpecificationDefinition;

/** Every integer is published (and enforced) within the safe range. */
const SAFE_INTEGER = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

describe('toToolInputJsonSchema', () => {
  it('maps every val_type to JSON Schema', () => {
    expect(toToolInputJsonSchema(sink)).toEqual({
      type: 'object',
      properties: {
        s: { type: 'string', description: 'A string.' },
        i: { type: 'integer', description: 'An integer.', ...SAFE_INTEGER },
        n: { type: 'number', description: 'A number.' },
        b: { type: 'boolean', description: 'A boolean.' },
        j: { type: 'object', description: 'A JSON object.' },
        a: { type: 'array', description: 'Integers.', items: { type: 'integer', ...SAFE_INTEGER } },
        e: { type: 'string', description: 'A choice.', enum: ['x', 'y'] },
        ae: {
          type: 'array',
          description: 'Several choices.',
          items: { type: 'string', enum: ['p', 'q'] },
        },
      },
      required: ['s', 'i', 'a'],
      additionalProperties: false,
    });
  });

  it('builds an empty object schema for a tool without parameters', () => {
    expect(toToolInputJsonSchema({ parameters: [] })).toEqual({
      type: 'object',
      properties: {},
      required: [],
      additionalProperties: false,
    });
  });

  it('does not share enum arrays with the frozen spec', () => {
    const schema = toToolInputJsonSchema(sink);
    schema.properties.e.enum!.push('z');
    expect(sink.parameters.find((p) => p.name === 'e')!.value_schema.enum).toEqual(['x', 'y']);
  });
});

describe('formatted tool schemas', () => {
  it('wraps the schema for OpenAI function calling, not strict with a free-form JSON parameter', () => {
    expect(toOpenAiFunction(sink)).toEqual({
      type: 'function',
      function: {
        name: 'Kitchen_Sink',
        description: 'Takes one parameter of each type.',
        strict: false,
        parameters: toToolInputJsonSchema(sink),
      },
    });
  });

  it('wraps the schema for Anthropic and MCP', () => {
    expect(toAnthropicTool(sink)).toEqual({
      name: 'Kitchen_Sink',
      description: 'Takes one parameter of each type.',
      input_schema: toToolInputJsonSchema(sink),
    });
    expect(toMcpTool(sink)).toEqual({
      name: 'Kitchen_Sink',
      description: 'Takes one parameter of each type.',
      inputSchema: toToolInputJsonSchema(sink),
    });
    expect(formatToolSchema(sink, 'openai')).toEqual(toOpenAiFunction(sink));
    expect(formatToolSchema(sink, 'anthropic')).toEqual(toAnthropicTool(sink));
    expect(formatToolSchema(sink, 'mcp')).toEqual(toMcpTool(sink));
  });

  it('replaces dots in the qualified name', () => {
    expect(formattedToolName('Google.SendEmail')).toBe('Google_SendEmail');
  });

  it('produces valid, unique function names for the whole built-in catalog', () => {
    const catalog = loadToolCatalog();
    const { items } = catalog.list({ offset: 0, limit: 1000 });
    const names = items.map((s) => toOpenAiFunction(s).function.name);
    for (const name of names) expect(name).toMatch(FORMATTED_NAME_PATTERN);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
  });

  it('maps a real tool, strict: optional parameters required and nullable, maxLength described', () => {
    const spec = loadToolCatalog().find('Google.SendEmail')!;
    const { parameters, strict } = toOpenAiFunction(spec).function;
    expect(strict).toBe(true);
    expect(parameters.required).toEqual(spec.parameters.map((param) => param.name));
    expect(parameters.properties.recipient.type).toBe('string');
    expect(parameters.properties.cc).toMatchObject({
      type: ['array', 'null'],
      items: { type: 'string' },
    });
    expect(parameters.properties.is_html.type).toEqual(['boolean', 'null']);
    for (const property of Object.values(parameters.properties)) {
      expect(property).not.toHaveProperty('maxLength');
    }
    const subject = spec.parameters.find((param) => param.name === 'subject')!;
    if (subject.value_schema.max_length !== undefined) {
      expect(parameters.properties.subject.description).toContain(
        `At most ${subject.value_schema.max_length} characters.`,
      );
    }
  });

  it('publishes bounds under their JSON Schema names, on the elements of arrays', () => {
    const schema = toToolInputJsonSchema({
      parameters: [
        {
          name: 'text',
          description: 'Text.',
          required: true,
          value_schema: { val_type: 'string', max_length: 10, pattern: '^x' },
        },
        {
          name: 'n',
          description: 'N.',
          required: false,
          value_schema: { val_type: 'integer', minimum: 1, maximum: 5 },
        },
        {
          name: 'list',
          description: 'List.',
          required: false,
          value_schema: { val_type: 'array', inner_val_type: 'number', max_items: 3, maximum: 9 },
        },
      ],
    });
    expect(schema.properties).toEqual({
      text: { type: 'string', description: 'Text.', maxLength: 10, pattern: '^x' },
      n: { type: 'integer', description: 'N.', minimum: 1, maximum: 5 },
      list: {
        type: 'array',
        description: 'List.',
        items: { type: 'number', maximum: 9 },
        maxItems: 3,
      },
    });
  });

  it('bounds every caller-sized string and array of the built-in catalog', () => {
    for (const spec of loadToolCatalog().list({ offset: 0, limit: 1000 }).items) {
      for (const parameter of spec.parameters) {
        const schema = parameter.value_schema;
        const element = schema.val_type === 'array' ? schema.inner_val_type : schema.val_type;
        const where = `${spec.qualifiedName}.${parameter.name}`;
        if (schema.val_type === 'array')
          expect([where, schema.max_items]).not.toEqual([where, undefined]);
        if (element === 'string' && !schema.enum) {
          expect([where, schema.max_length ?? schema.pattern]).not.toEqual([where, undefined]);
        }
      }
    }
  });
});
