import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolCatalog } from '../catalog/tool-catalog';
import { formattedToolName, toToolInputJsonSchema } from '../catalog/formatted-schema';
import { NAME_PATTERN } from '../catalog/toolkit-file.schema';
import {
  parameterNameFor,
  pascalCaseName,
  toCallOutcome,
  toMcpArguments,
  toMcpToolkit,
  toolkitNameFor,
  toolkitVersionFor,
  toolNamesFor,
  toParameters,
  toValueSchema,
} from './mcp-tool.mapper';

const identity = { name: 'acme/issue-tracker', version: '2.3.1' };

function aTool(overrides: Partial<Tool> = {}): Tool {
  return {
    name: 'echo',
    description: 'Echoes.',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    ...overrides,
  };
}

describe('MCP name sanitising', () => {
  it.each([
    ['mcp-servers/everything', 'McpServersEverything'],
    ['get-sum', 'GetSum'],
    ['get_weather', 'GetWeather'],
    ['getWeather', 'GetWeather'],
    ['  météo du jour ', 'MeteoDuJour'],
    ['3d.render', 'X3dRender'],
    ['SQL', 'SQL'],
  ])('PascalCases %j as %j', (raw, expected) => {
    expect(pascalCaseName(raw, 'X')).toBe(expected);
    expect(expected).toMatch(NAME_PATTERN);
  });

  it('gives up on names without letters or digits', () => {
    expect(pascalCaseName('--//', 'X')).toBeUndefined();
  });

  it('names the toolkit after the override, the server, or the configured id', () => {
    expect(toolkitNameFor('mcp-servers/everything', { id: 'e' })).toBe('McpServersEverything');
    expect(toolkitNameFor('mcp-servers/everything', { id: 'e', toolkit: 'Everything' })).toBe(
      'Everything',
    );
    expect(toolkitNameFor('!!!', { id: 'my-server' })).toBe('MyServer');
    expect(toolkitNameFor('!!!', { id: '42' })).toBe('Mcp42');
    expect(toolkitNameFor('x'.repeat(80), { id: 'e' })).toHaveLength(40);
  });

  it('keeps semantic versions and pads or replaces the rest', () => {
    expect(toolkitVersionFor('2.0.0')).toBe('2.0.0');
    expect(toolkitVersionFor('1.0.0-beta.1+build.5')).toBe('1.0.0-beta.1+build.5');
    expect(toolkitVersionFor('v1.2')).toBe('1.2.0');
    expect(toolkitVersionFor('3')).toBe('3.0.0');
    expect(toolkitVersionFor('2024-06-01')).toBe('0.0.0');
    expect(toolkitVersionFor('')).toBe('0.0.0');
    expect(toolkitVersionFor(undefined)).toBe('0.0.0');
  });

  it('makes tool names unique, deterministically, within the 64-character function name', () => {
    const names = toolNamesFor('Kit', ['get_sum', 'get-sum', 'getSum', '9lives', '']);
    expect(Object.fromEntries(names)).toEqual({
      '': 'Tool',
      '9lives': 'Tool9lives',
      'get-sum': 'GetSum',
      getSum: 'GetSum_2',
      get_sum: 'GetSum_3',
    });
    const long = toolNamesFor('K'.repeat(40), ['a'.repeat(100), `${'a'.repeat(100)}-b`]);
    for (const name of long.values()) {
      expect(formattedToolName(`${'K'.repeat(40)}.${name}`)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    }
    expect(new Set(long.values()).size).toBe(2);
  });

  it('keeps valid parameter names and repairs the others', () => {
    expect(parameterNameFor('messageType')).toBe('messageType');
    expect(parameterNameFor('page_size')).toBe('page_size');
    expect(parameterNameFor('page-size')).toBe('page_size');
    expect(parameterNameFor('_private')).toBe('p_private');
    expect(parameterNameFor('2x')).toBe('p2x');
    expect(parameterNameFor('$ref')).toBe('p_ref');
  });
});

describe('JSON Schema → value schema', () => {
  it.each([
    [{ type: 'string' }, { val_type: 'string' }],
    [{ type: 'integer' }, { val_type: 'integer' }],
    [{ type: 'number' }, { val_type: 'number' }],
    [{ type: 'boolean' }, { val_type: 'boolean' }],
    [{ type: 'object', properties: { a: { type: 'string' } } }, { val_type: 'json' }],
    [
      { type: 'string', enum: ['a', 'b'] },
      { val_type: 'string', enum: ['a', 'b'] },
    ],
    [{ enum: ['a', 'b'] }, { val_type: 'string', enum: ['a', 'b'] }],
    [
      { type: 'string', const: 'only' },
      { val_type: 'string', enum: ['only'] },
    ],
    [{ type: 'integer', enum: [1, 2] }, { val_type: 'integer' }],
    [{ type: 'string', enum: ['a', 'a'] }, { val_type: 'string' }],
    [{ type: 'string', enum: [''] }, { val_type: 'string' }],
    [
      { type: 'array', items: { type: 'string' } },
      { val_type: 'array', inner_val_type: 'string' },
    ],
    [
      { type: 'array', items: { type: 'string', enum: ['x', 'y'] } },
      { val_type: 'array', inner_val_type: 'string', enum: ['x', 'y'] },
    ],
    [
      { type: 'array', items: { type: 'integer' } },
      { val_type: 'array', inner_val_type: 'integer' },
    ],
    [
      { type: 'array', items: { type: 'object' } },
      { val_type: 'array', inner_val_type: 'json' },
    ],
    [
      { type: 'array', items: { type: 'array', items: { type: 'string' } } },
      { val_type: 'array', inner_val_type: 'json' },
    ],
    [{ type: 'array' }, { val_type: 'array', inner_val_type: 'json' }],
    [
      { type: 'array', items: { anyOf: [{ type: 'string' }] } },
      { val_type: 'array', inner_val_type: 'json' },
    ],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, { val_type: 'json' }],
    [{ oneOf: [{ type: 'string' }] }, { val_type: 'json' }],
    [{ $ref: '#/$defs/Thing' }, { val_type: 'json' }],
    [{ type: ['string', 'null'] }, { val_type: 'json' }],
    [{ type: 'null' }, { val_type: 'json' }],
    [{}, { val_type: 'json' }],
    [true, { val_type: 'json' }],
  ])('maps %j to %j', (schema, expected) => {
    expect(toValueSchema(schema)).toEqual(expected);
  });
});

describe('inputSchema → parameters', () => {
  it('maps properties, required, descriptions and names', () => {
    const { parameters, argumentNames } = toParameters({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Free text' },
        limit: { type: 'integer', title: 'Limit' },
        'page-size': { type: 'number' },
      },
      required: ['query', 'page-size'],
    });
    expect(parameters).toEqual([
      {
        name: 'query',
        description: 'Free text',
        required: true,
        inferrable: true,
        value_schema: { val_type: 'string' },
      },
      {
        name: 'limit',
        description: 'Limit',
        required: false,
        inferrable: true,
        value_schema: { val_type: 'integer' },
      },
      {
        name: 'page_size',
        description: 'The "page-size" argument.',
        required: true,
        inferrable: true,
        value_schema: { val_type: 'number' },
      },
    ]);
    expect(argumentNames.get('page_size')).toBe('page-size');
  });

  it('keeps parameter names unique when repairs collide', () => {
    const { parameters, argumentNames } = toParameters({
      type: 'object',
      properties: { 'a-b': { type: 'string' }, a_b: { type: 'string' } },
    });
    expect(parameters.map((p) => p.name)).toEqual(['a_b', 'a_b_2']);
    expect(argumentNames.get('a_b')).toBe('a-b');
    expect(argumentNames.get('a_b_2')).toBe('a_b');
  });

  it('accepts schemas without properties', () => {
    expect(toParameters({ type: 'object' }).parameters).toEqual([]);
    expect(toParameters(undefined).parameters).toEqual([]);
  });

  it('translates arguments back to the property names', () => {
    const names = new Map([['page_size', 'page-size']]);
    expect(toMcpArguments({ page_size: 5, query: 'x', 'page-size': 6 }, names)).toEqual({
      'page-size': 6,
      query: 'x',
    });
    expect(toMcpArguments({ a: 1 }, undefined)).toEqual({ a: 1 });
  });
});

describe('toMcpToolkit', () => {
  const tools: Tool[] = [
    aTool(),
    aTool({
      name: 'get-sum',
      description: undefined,
      title: 'Get Sum',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    }),
    aTool({ name: 'research', execution: { taskSupport: 'required' } }),
  ];

  it('builds a catalog-valid toolkit with origins', () => {
    const { toolkit, skipped, argumentNames } = toMcpToolkit({ id: 'tracker' }, identity, tools);
    expect(toolkit).toMatchObject({
      name: 'AcmeIssueTracker',
      version: '2.3.1',
      description: 'Tools of the MCP server "acme/issue-tracker".',
    });
    expect(toolkit!.tools.map((t) => [t.name, t.origin])).toEqual([
      ['Echo', { kind: 'mcp', server: 'tracker', tool: 'echo' }],
      [
        'GetSum',
        {
          kind: 'mcp',
          server: 'tracker',
          tool: 'get-sum',
          // The server's annotations travel with the tool (the mcp format passes them on).
          annotations: { idempotentHint: true, readOnlyHint: true },
        },
      ],
    ]);
    const sum = toolkit!.tools[1];
    expect(sum.description).toBe('Get Sum');
    expect(sum.output).toEqual({
      description: 'The result of "Get Sum" (read-only, idempotent).',
      available_modes: ['value', 'error'],
      value_schema: { val_type: 'json' },
    });
    expect(toToolInputJsonSchema(sum).required).toEqual(['a', 'b']);
    expect(skipped).toEqual([{ tool: 'research', reason: 'it can only run as an MCP task' }]);
    expect([...argumentNames.keys()]).toEqual(['echo', 'get-sum']);

    const catalog = new ToolCatalog([]);
    expect(catalog.setDynamicToolkits('mcp:tracker', [toolkit!]).accepted).toEqual([
      'AcmeIssueTracker',
    ]);
    expect(catalog.find('AcmeIssueTracker.GetSum@2.3.1')!.origin).toEqual({
      kind: 'mcp',
      server: 'tracker',
      tool: 'get-sum',
      annotations: { idempotentHint: true, readOnlyHint: true },
    });
  });

  it('uses instructions as the description, cut when long', () => {
    const short = toMcpToolkit({ id: 'x' }, { ...identity, instructions: ' Use me. ' }, tools);
    expect(short.toolkit!.description).toBe('Use me.');
    const long = toMcpToolkit({ id: 'x' }, { ...identity, instructions: 'y'.repeat(5000) }, tools);
    expect(long.toolkit!.description).toHaveLength(1000);
  });

  it('has no toolkit without callable tools', () => {
    expect(toMcpToolkit({ id: 'x' }, identity, []).toolkit).toBeUndefined();
    expect(toMcpToolkit({ id: 'x' }, identity, [tools[2]]).toolkit).toBeUndefined();
  });

  it('skips a tool name the server lists twice', () => {
    const { toolkit, skipped } = toMcpToolkit({ id: 'x' }, identity, [aTool(), aTool()]);
    expect(toolkit!.tools).toHaveLength(1);
    expect(skipped).toEqual([{ tool: 'echo', reason: 'the server lists this name twice' }]);
  });
});

describe('toCallOutcome', () => {
  it('turns isError into an error with the texts joined', () => {
    expect(
      toCallOutcome({
        isError: true,
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'AA==', mimeType: 'image/png' },
          { type: 'text', text: 'second' },
        ],
      }),
    ).toEqual({ error: 'first\nsecond' });
    expect(toCallOutcome({ isError: true, content: [] })).toEqual({
      error: 'The tool reported an error without a message.',
    });
  });

  it('prefers structured content', () => {
    expect(
      toCallOutcome({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } }),
    ).toEqual({ value: { a: 1 } });
  });

  it('answers one text as that string, unparsed, and several as a list', () => {
    expect(toCallOutcome({ content: [{ type: 'text', text: '42' }] })).toEqual({ value: '42' });
    expect(
      toCallOutcome({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ value: ['a', 'b'] });
  });

  it('passes other content through as sent', () => {
    const content = [
      { type: 'text' as const, text: 'a picture' },
      { type: 'image' as const, data: 'AA==', mimeType: 'image/png' },
    ];
    expect(toCallOutcome({ content })).toEqual({ value: content });
    expect(toCallOutcome({ content: [] })).toEqual({ value: [] });
  });
});
