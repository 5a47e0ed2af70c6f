import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findRepoRoot } from '../../common/repo-root';
import { ToolCatalog, loadToolCatalog } from './tool-catalog';
import {
  ToolCatalogValidationError,
  builtinToolkitsDir,
  loadToolkitDefinitions,
} from './tool-catalog.loader';
import { serializeSpecification, toSpecificationResponse } from './tool-specification.mapper';
import {
  RequirementState,
  TOOL_SCHEMA_FORMATS,
  ToolkitDefinition,
  VAL_TYPES,
} from './tool-specification.types';

function validToolkit(overrides: Partial<ToolkitDefinition> = {}): ToolkitDefinition {
  return {
    name: 'Fixture',
    description: 'Test toolkit.',
    version: '0.1.0',
    tools: [
      {
        name: 'Echo',
        description: 'Echo the input back.',
        parameters: [
          {
            name: 'message',
            description: 'Text to echo.',
            required: true,
            value_schema: { val_type: 'string' },
          },
        ],
        output: {
          description: 'The message.',
          available_modes: ['value', 'error'],
          value_schema: { val_type: 'string' },
        },
      },
    ],
    ...overrides,
  };
}

function without(value: object, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  delete copy[key];
  return copy;
}

describe('built-in tool catalog', () => {
  const catalog = loadToolCatalog();
  const all = catalog.list({ offset: 0, limit: 1000 });

  it('finds the repository root and the catalog directory', () => {
    const root = findRepoRoot();
    expect(fs.existsSync(path.join(root, 'package.json'))).toBe(true);
    expect(builtinToolkitsDir()).toBe(path.join(root, 'catalog', 'toolkits'));
  });

  it('loads at least 3 toolkits and 10 tools', () => {
    expect(catalog.toolkits().length).toBeGreaterThanOrEqual(3);
    expect(all.total).toBeGreaterThanOrEqual(10);
    expect(all.items).toHaveLength(all.total);
    expect(catalog.size).toBe(all.total);
  });

  it('covers every kind of requirement', () => {
    const specs = all.items;
    const oauth = specs.filter((s) => s.requirements.authorization !== undefined);
    const secret = specs.filter((s) => s.requirements.secrets.length > 0);
    const none = specs.filter(
      (s) => s.requirements.authorization === undefined && s.requirements.secrets.length === 0,
    );
    expect(oauth.length).toBeGreaterThan(0);
    expect(oauth.some((s) => s.requirements.authorization!.scopes.length > 0)).toBe(true);
    expect(secret.length).toBeGreaterThan(0);
    expect(none.length).toBeGreaterThan(0);
  });

  it('uses every val_type and enum somewhere', () => {
    const schemas = all.items.flatMap((s) => [
      ...s.parameters.map((p) => p.value_schema),
      s.output.value_schema,
    ]);
    for (const valType of VAL_TYPES) {
      expect(schemas.some((v) => v.val_type === valType)).toBe(true);
    }
    expect(schemas.some((v) => v.enum !== undefined)).toBe(true);
  });

  it('merges the toolkit provider with per-tool scopes and inherits toolkit secrets', () => {
    expect(catalog.find('Google.SendEmail')!.requirements).toEqual({
      authorization: {
        provider_id: 'google',
        provider_type: 'oauth2',
        scopes: ['https://www.googleapis.com/auth/gmail.send'],
      },
      secrets: [],
    });
    expect(catalog.find('Weather.GetForecast')!.requirements).toEqual({
      secrets: [{ key: 'OPENWEATHER_API_KEY' }],
    });
  });

  it('keeps a stable order: toolkit name, then tool name, case-insensitive', () => {
    const keys = all.items.map((s) => `${s.toolkit.name}\u0000${s.name}`.toLowerCase());
    expect(keys).toEqual([...keys].sort());
    expect(catalog.toolkits()).toEqual(
      [...catalog.toolkits()].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())),
    );
    expect(loadToolCatalog().list({ offset: 0, limit: 1000 }).items).toEqual(all.items);
  });

  it('paginates', () => {
    const first = catalog.list({ offset: 0, limit: 3 });
    const second = catalog.list({ offset: 3, limit: 3 });
    expect(first.total).toBe(all.total);
    expect(first.items).toEqual(all.items.slice(0, 3));
    expect(second.items).toEqual(all.items.slice(3, 6));
    expect(catalog.list({ offset: all.total, limit: 10 })).toEqual({ items: [], total: all.total });
    expect(catalog.list({ offset: 0, limit: 0 }).items).toEqual([]);
  });

  it('filters by toolkit case-insensitively', () => {
    const google = catalog.list({ toolkit: 'gOoGlE', offset: 0, limit: 100 });
    expect(google.total).toBe(4);
    expect(google.items.every((s) => s.toolkit.name === 'Google')).toBe(true);
    expect(catalog.list({ toolkit: 'google', offset: 1, limit: 2 }).items).toEqual(
      google.items.slice(1, 3),
    );
    expect(catalog.list({ toolkit: 'Nope', offset: 0, limit: 10 })).toEqual({
      items: [],
      total: 0,
    });
  });

  it('finds by qualified and fully qualified name, case-insensitively', () => {
    const spec = catalog.find('Google.SendEmail');
    expect(spec).toBeDefined();
    expect(spec!.qualifiedName).toBe('Google.SendEmail');
    expect(spec!.fullyQualifiedName).toBe(`Google.SendEmail@${spec!.toolkit.version}`);
    expect(catalog.find('google.sendemail')).toBe(spec);
    expect(catalog.find(`Google.SendEmail@${spec!.toolkit.version}`)).toBe(spec);
    expect(catalog.find('GOOGLE.SENDEMAIL@1.0.0')).toBe(spec);
    expect(catalog.find('Google_SendEmail')).toBeUndefined();
  });

  it('misses unknown names and wrong versions', () => {
    expect(catalog.find('Google.SendEmail@9.9.9')).toBeUndefined();
    expect(catalog.find('Google.SendEmail@')).toBeUndefined();
    expect(catalog.find('Google.Nope')).toBeUndefined();
    expect(catalog.find('SendEmail')).toBeUndefined();
    expect(catalog.find('')).toBeUndefined();
  });

  it('hands out frozen specs', () => {
    const spec = catalog.find('Math.Calculate')!;
    expect(Object.isFrozen(spec)).toBe(true);
    expect(Object.isFrozen(spec.parameters[0].value_schema)).toBe(true);
  });

  it('defaults inferrable to true', () => {
    const catalog = new ToolCatalog([validToolkit()]);
    expect(catalog.find('Fixture.Echo')!.parameters[0].inferrable).toBe(true);
  });
});

describe('toSpecificationResponse', () => {
  const catalog = loadToolCatalog();

  it('builds the response item', () => {
    const item = toSpecificationResponse(catalog.find('Github.ListPullRequests')!);
    expect(item).toMatchObject({
      name: 'ListPullRequests',
      qualified_name: 'Github.ListPullRequests',
      fully_qualified_name: 'Github.ListPullRequests@1.0.0',
      formatted_schema: { type: 'function', function: { name: 'Github_ListPullRequests' } },
      output: { available_modes: ['value', 'error'], value_schema: { val_type: 'json' } },
      toolkit: { name: 'Github', version: '1.0.0' },
    });
    const state = item.input.parameters.find((p) => p.name === 'state')!;
    expect(state).toEqual({
      name: 'state',
      description: expect.any(String),
      required: false,
      inferrable: true,
      value_schema: { val_type: 'string', enum: ['open', 'closed', 'all'] },
    });
    // Keys that do not apply are omitted, not null; bounds are published.
    const base = item.input.parameters.find((p) => p.name === 'base')!;
    expect(base.value_schema).toEqual({ val_type: 'string', max_length: 255 });
  });

  it('reports oauth requirements as not started without context', () => {
    const { requirements } = toSpecificationResponse(catalog.find('Google.SendEmail')!);
    expect(requirements).toEqual({
      met: false,
      authorization: {
        id: 'google',
        provider_id: 'google',
        provider_type: 'oauth2',
        status: 'not_started',
        status_reason: expect.any(String),
        token_status: 'not_started',
        oauth2: { scopes: ['https://www.googleapis.com/auth/gmail.send'] },
      },
      secrets: [],
    });
  });

  it('uses the caller authorization state', () => {
    const spec = catalog.find('Google.SendEmail')!;
    const completed = toSpecificationResponse(spec, {
      authorization: { id: 'auth_1', status: 'completed', status_reason: '', token_status: 'ok' },
    });
    expect(completed.requirements.met).toBe(true);
    expect(completed.requirements.authorization).toMatchObject({
      id: 'auth_1',
      status: 'completed',
      token_status: 'ok',
    });
    const pending = toSpecificationResponse(spec, {
      authorization: { status: 'pending', status_reason: 'waiting', token_status: 'pending' },
    });
    expect(pending.requirements.met).toBe(false);
    expect(pending.requirements.authorization!.id).toBe('google');
  });

  it('reports secrets per key', () => {
    const spec = catalog.find('Weather.GetCurrentWeather')!;
    const missing = toSpecificationResponse(spec).requirements;
    expect(missing.met).toBe(false);
    expect(missing.authorization).toBeUndefined();
    expect(missing.secrets).toEqual([
      { key: 'OPENWEATHER_API_KEY', met: false, status_reason: expect.any(String) },
    ]);
    const present = toSpecificationResponse(spec, {
      configuredSecrets: new Set(['OPENWEATHER_API_KEY']),
    }).requirements;
    expect(present).toEqual({
      met: true,
      secrets: [{ key: 'OPENWEATHER_API_KEY', met: true, status_reason: '' }],
    });
  });

  it('reports tools without requirements as met', () => {
    expect(toSpecificationResponse(catalog.find('Math.Calculate')!).requirements).toEqual({
      met: true,
      secrets: [],
    });
  });

  it('supports the other schema formats', () => {
    const spec = catalog.find('Time.CurrentTime')!;
    expect(toSpecificationResponse(spec, {}, 'anthropic').formatted_schema).toHaveProperty(
      'input_schema',
    );
    expect(toSpecificationResponse(spec, {}, 'mcp').formatted_schema).toHaveProperty('inputSchema');
  });

  it('serializes every spec, format and requirement state as JSON.stringify does', () => {
    const states: (RequirementState | undefined)[] = [
      undefined,
      {},
      {
        authorization: { id: 'auth_1', status: 'completed', status_reason: '', token_status: 'ok' },
        configuredSecrets: ['OPENWEATHER_API_KEY'],
      },
      { authorization: { status: 'failed', status_reason: 'denied "x"', token_status: 'failed' } },
    ];
    const specs = catalog.list({ offset: 0, limit: 1000 }).items;
    expect(specs.length).toBeGreaterThan(10);
    for (const spec of specs) {
      for (const format of [undefined, ...TOOL_SCHEMA_FORMATS]) {
        for (const state of states) {
          const expected = JSON.stringify(toSpecificationResponse(spec, state, format));
          // Twice: the first call prepares the spec's fixed JSON, the second reuses it.
          const serialized = () =>
            Buffer.concat(serializeSpecification(spec, state, format)).toString('utf8');
          expect(serialized()).toBe(expected);
          expect(serialized()).toBe(expected);
        }
      }
    }
  });
});

describe('tool catalog validation', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentline-catalog-'));
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function write(file: string, data: unknown): void {
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    fs.writeFileSync(path.join(dir, file), text);
  }

  /** Writes one fixture, loads the catalog over it, and returns the validation error text. */
  function errorFor(data: unknown, file = 'bad.json'): string {
    write(file, data);
    try {
      loadToolCatalog(dir);
    } catch (err: unknown) {
      expect(err).toBeInstanceOf(ToolCatalogValidationError);
      return (err as Error).message;
    }
    throw new Error('expected the catalog to be rejected');
  }

  /** A valid toolkit with the given (possibly invalid) value schema on its only parameter. */
  function withValueSchema(valueSchema: unknown): unknown {
    const kit = validToolkit();
    return {
      ...kit,
      tools: [
        {
          ...kit.tools[0],
          parameters: [{ ...kit.tools[0].parameters[0], value_schema: valueSchema }],
        },
      ],
    };
  }

  function withTool(tool: Record<string, unknown>): unknown {
    const kit = validToolkit();
    return { ...kit, tools: [{ ...kit.tools[0], ...tool }] };
  }

  it('accepts a valid extra directory alongside the built-ins', () => {
    write('fixture.json', validToolkit());
    fs.writeFileSync(path.join(dir, 'README.md'), 'not a toolkit');
    const catalog = loadToolCatalog(dir);
    expect(catalog.find('Fixture.Echo@0.1.0')).toBeDefined();
    expect(catalog.toolkits()).toContain('Google');
    expect(loadToolkitDefinitions(dir).map((t) => t.name)).toContain('Fixture');
  });

  it('rejects a missing directory', () => {
    expect(() => loadToolCatalog(path.join(dir, 'missing'))).toThrow(
      /missing.*toolkit directory does not exist/,
    );
  });

  it('rejects invalid JSON, naming the file', () => {
    expect(errorFor('{ "name": ', 'broken.json')).toMatch(/broken\.json: \(root\): invalid JSON/);
  });

  it('rejects a missing toolkit name', () => {
    expect(errorFor(without(validToolkit(), 'name'))).toMatch(/bad\.json: name: is required/);
  });

  it('rejects an empty tool name', () => {
    expect(errorFor(withTool({ name: '' }))).toMatch(
      /bad\.json: tools\[0\]\.name: must not be empty/,
    );
  });

  it('rejects a missing parameter name', () => {
    const kit = validToolkit();
    const param = without(kit.tools[0].parameters[0], 'name');
    expect(errorFor(withTool({ parameters: [param] }))).toMatch(
      /tools\[0\]\.parameters\[0\]\.name: is required/,
    );
  });

  it.each(['Send-Email', '1Tool', 'Has Space', 'Dot.Name', '_x'])('rejects the name %j', (name) => {
    expect(errorFor(withTool({ name }))).toMatch(/tools\[0\]\.name: .* must match/);
  });

  it('rejects a bad toolkit name', () => {
    expect(errorFor(validToolkit({ name: 'My-Kit' }))).toMatch(
      /bad\.json: name: "My-Kit" must match/,
    );
  });

  it('rejects a toolkit name already used by a built-in, case-insensitively', () => {
    expect(errorFor(validToolkit({ name: 'google' }))).toMatch(
      /bad\.json: name: duplicate toolkit name "google" \(already declared in src[/\\]tools[/\\]toolkits[/\\]google[/\\]toolkit\.json\)/,
    );
  });

  it('rejects duplicate toolkit names across extra files', () => {
    write('a.json', validToolkit());
    expect(errorFor(validToolkit({ name: 'FIXTURE' }), 'b.json')).toMatch(
      /b\.json: name: duplicate toolkit name "FIXTURE"/,
    );
  });

  it('rejects duplicate tool names, case-insensitively', () => {
    const kit = validToolkit();
    const tools = [kit.tools[0], { ...kit.tools[0], name: 'ECHO' }];
    expect(errorFor({ ...kit, tools })).toMatch(/bad\.json: tools: duplicate tool name "ECHO"/);
  });

  it('rejects duplicate parameter names', () => {
    const param = validToolkit().tools[0].parameters[0];
    expect(errorFor(withTool({ parameters: [param, param] }))).toMatch(
      /tools\[0\]\.parameters: duplicate parameter name "message"/,
    );
  });

  it('rejects an unknown val_type', () => {
    expect(errorFor(withValueSchema({ val_type: 'str' }))).toMatch(
      /tools\[0\]\.parameters\[0\]\.value_schema\.val_type: unknown val_type string "str"/,
    );
  });

  it('rejects an array without inner_val_type', () => {
    expect(errorFor(withValueSchema({ val_type: 'array' }))).toMatch(
      /value_schema\.inner_val_type: is required when val_type is "array"/,
    );
  });

  it('rejects inner_val_type on a non-array', () => {
    expect(errorFor(withValueSchema({ val_type: 'string', inner_val_type: 'string' }))).toMatch(
      /value_schema\.inner_val_type: is only allowed when val_type is "array"/,
    );
  });

  it('rejects an unknown or nested inner_val_type', () => {
    expect(errorFor(withValueSchema({ val_type: 'array', inner_val_type: 'array' }))).toMatch(
      /value_schema\.inner_val_type: unknown inner_val_type/,
    );
  });

  it.each([
    ['a string', 'open'],
    ['numbers', [1, 2]],
    ['empty strings', ['']],
  ])('rejects an enum of %s', (_label, values) => {
    expect(errorFor(withValueSchema({ val_type: 'string', enum: values }))).toMatch(
      /value_schema\.enum: enum must be an array of non-empty strings/,
    );
  });

  it('rejects an empty or duplicate enum', () => {
    expect(errorFor(withValueSchema({ val_type: 'string', enum: [] }))).toMatch(
      /value_schema\.enum: enum must list at least one value/,
    );
    expect(errorFor(withValueSchema({ val_type: 'string', enum: ['a', 'a'] }))).toMatch(
      /value_schema\.enum: duplicate enum value "a"/,
    );
  });

  it('accepts bounds that fit the value type', () => {
    write(
      'bounded.json',
      withValueSchema({
        val_type: 'array',
        inner_val_type: 'string',
        max_items: 3,
        max_length: 5,
        pattern: '^a',
      }),
    );
    const spec = loadToolCatalog(dir).find(
      `${validToolkit().name}.${validToolkit().tools[0].name}`,
    )!;
    expect(spec.parameters[0].value_schema).toEqual({
      val_type: 'array',
      inner_val_type: 'string',
      max_items: 3,
      max_length: 5,
      pattern: '^a',
    });
  });

  it('rejects bounds that do not fit the value type or are not numbers', () => {
    expect(errorFor(withValueSchema({ val_type: 'integer', max_length: 3 }))).toMatch(
      /value_schema\.max_length: max_length does not apply to integer values/,
    );
    expect(errorFor(withValueSchema({ val_type: 'string', max_items: 3 }))).toMatch(
      /value_schema\.max_items: max_items does not apply to string values/,
    );
    expect(
      errorFor(withValueSchema({ val_type: 'array', inner_val_type: 'string', maximum: 3 })),
    ).toMatch(/value_schema\.maximum: maximum does not apply to an array of string values/);
    expect(errorFor(withValueSchema({ val_type: 'string', max_length: -1 }))).toMatch(
      /value_schema\.max_length: expected a non-negative integer, got number -1/,
    );
    expect(errorFor(withValueSchema({ val_type: 'number', minimum: '0' }))).toMatch(
      /value_schema\.minimum: expected a number, got string "0"/,
    );
    expect(errorFor(withValueSchema({ val_type: 'number', minimum: 2, maximum: 1 }))).toMatch(
      /value_schema\.minimum: minimum 2 is above maximum 1/,
    );
    expect(errorFor(withValueSchema({ val_type: 'string', pattern: '(' }))).toMatch(
      /value_schema\.pattern: not a regular expression/,
    );
    expect(errorFor(withValueSchema({ val_type: 'string', pattern: '^(?!\\.)[a-z.]+$' }))).toMatch(
      /value_schema\.pattern: uses a lookahead, which OpenAI refuses in a tool schema/,
    );
    expect(errorFor(withValueSchema({ val_type: 'string', pattern: '^[\\p{L}]+(a)\\1$' }))).toMatch(
      /value_schema\.pattern: uses a Unicode property escape and a backreference, which OpenAI refuses/,
    );
  });

  const output = (extra: Record<string, unknown>, valType = 'string') => ({
    description: 'The message.',
    available_modes: ['value', 'error'],
    value_schema: { val_type: valType },
    ...extra,
  });
  const annotations = {
    title: 'Echo',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  };

  it('accepts annotations and an output json_schema of the value’s type', () => {
    write(
      'fixture.json',
      withTool({
        annotations,
        output: output(
          {
            json_schema: {
              type: 'object',
              properties: { echo: { type: ['string', 'null'] } },
              required: ['echo'],
              additionalProperties: false,
            },
          },
          'json',
        ),
      }),
    );
    const spec = loadToolCatalog(dir).find('Fixture.Echo')!;
    expect(spec.annotations).toEqual(annotations);
    expect(spec.output.json_schema).toMatchObject({ type: 'object', required: ['echo'] });
  });

  it('rejects an output json_schema that is not of the value’s type, or not a schema', () => {
    expect(errorFor(withTool({ output: output({ json_schema: { type: 'object' } }) }))).toMatch(
      /output\.json_schema\.type: must be "string", the type of val_type "string"/,
    );
    expect(
      errorFor(withTool({ output: output({ json_schema: { type: 'string', requried: [] } }) })),
    ).toMatch(/output\.json_schema: not a JSON Schema: strict mode: unknown keyword: "requried"/);
    expect(
      errorFor(withTool({ output: output({ json_schema: { type: 'string', format: 'uri' } }) })),
    ).toMatch(/output\.json_schema: not a JSON Schema: unknown format "uri"/);
    expect(errorFor(withTool({ output: output({ json_schema: 'string' }) }))).toMatch(
      /output\.json_schema: expected an object, got string "string"/,
    );
  });

  it('rejects annotations missing a hint, or with one MCP does not define', () => {
    const { idempotentHint: _left, ...missing } = annotations;
    void _left;
    expect(errorFor(withTool({ annotations: missing }))).toMatch(
      /tools\[0\]\.annotations\.idempotentHint: is required/,
    );
    expect(errorFor(withTool({ annotations: { ...annotations, safeHint: true } }))).toMatch(
      /tools\[0\]\.annotations\.safeHint: unknown property "safeHint"/,
    );
    expect(errorFor(withTool({ annotations: { ...annotations, readOnlyHint: 'yes' } }))).toMatch(
      /annotations\.readOnlyHint: expected a boolean, got string "yes"/,
    );
  });

  it('rejects an enum on non-string values', () => {
    expect(errorFor(withValueSchema({ val_type: 'integer', enum: ['1'] }))).toMatch(
      /value_schema\.enum: enum is only allowed on string values/,
    );
    expect(
      errorFor(withValueSchema({ val_type: 'array', inner_val_type: 'number', enum: ['1'] })),
    ).toMatch(/value_schema\.enum: enum is only allowed on string values/);
  });

  it('rejects a provider_type other than oauth2', () => {
    const requirements = { authorization: { provider_id: 'acme', provider_type: 'api_key' } };
    expect(errorFor({ ...validToolkit(), requirements })).toMatch(
      /requirements\.authorization\.provider_type: unsupported provider_type string "api_key"/,
    );
    expect(
      errorFor(
        withTool({
          requirements: { authorization: { provider_id: 'acme', provider_type: 'basic' } },
        }),
      ),
    ).toMatch(/tools\[0\]\.requirements\.authorization\.provider_type: unsupported provider_type/);
  });

  it('rejects tool scopes without any provider', () => {
    expect(
      errorFor(withTool({ requirements: { authorization: { oauth2: { scopes: ['read'] } } } })),
    ).toMatch(/tools\[0\]\.requirements\.authorization\.provider_id: is required because/);
  });

  it('rejects malformed scopes and secrets', () => {
    const requirements = { authorization: { provider_id: 'acme', provider_type: 'oauth2' } };
    expect(
      errorFor({
        ...(withTool({
          requirements: { authorization: { oauth2: { scopes: 'repo' } } },
        }) as object),
        requirements,
      }),
    ).toMatch(/requirements\.authorization\.oauth2\.scopes: scope must be an array/);
    expect(errorFor(withTool({ requirements: { secrets: [{ key: 'MY-KEY' }] } }))).toMatch(
      /tools\[0\]\.requirements\.secrets\[0\]\.key: "MY-KEY" must match/,
    );
    expect(errorFor(withTool({ requirements: { secrets: ['API_KEY'] } }))).toMatch(
      /tools\[0\]\.requirements\.secrets\[0\]: expected an object/,
    );
  });

  it.each(['1.0', 'v1.0.0', '1.0.0.0', '01.0.0', ''])('rejects the version %j', (version) => {
    expect(errorFor(validToolkit({ version }))).toMatch(/bad\.json: version: /);
  });

  it.each(['1.0.0', '0.10.3', '2.0.0-beta.1', '1.2.3+build.7'])('accepts the version %j', (v) => {
    write('ok.json', validToolkit({ version: v }));
    expect(loadToolCatalog(dir).find(`Fixture.Echo@${v}`)).toBeDefined();
  });

  it('rejects unknown properties so typos cannot pass silently', () => {
    const kit = validToolkit();
    const param = { ...kit.tools[0].parameters[0], requried: true };
    expect(errorFor(withTool({ parameters: [param] }))).toMatch(
      /tools\[0\]\.parameters\[0\]\.requried: unknown property "requried"/,
    );
  });

  it('rejects wrong primitive types, missing output and toolkits without tools', () => {
    const kit = validToolkit();
    const param = { ...kit.tools[0].parameters[0], required: 'yes' };
    expect(errorFor(withTool({ parameters: [param] }))).toMatch(
      /parameters\[0\]\.required: expected a boolean/,
    );
    expect(errorFor({ ...kit, tools: [without(kit.tools[0], 'output')] })).toMatch(
      /tools\[0\]\.output: is required/,
    );
    expect(
      errorFor(withTool({ output: { ...kit.tools[0].output, available_modes: ['x'] } })),
    ).toMatch(/output\.available_modes: modes must be among/);
    expect(errorFor({ ...kit, tools: [] })).toMatch(/tools: a toolkit must declare at least one/);
    expect(errorFor([kit])).toMatch(/bad\.json: \(root\): expected an object, got an array/);
  });

  it('rejects tool names that collide or overflow once formatted for LLMs', () => {
    write('a.json', validToolkit({ name: 'Foo_Bar' }));
    const kit = validToolkit({ name: 'Foo' });
    expect(errorFor({ ...kit, tools: [{ ...kit.tools[0], name: 'Bar_Echo' }] })).toMatch(
      /"Foo\.Bar_Echo" and "Foo_Bar\.Echo" both format to the function name "Foo_Bar_Echo"/,
    );
    fs.rmSync(path.join(dir, 'a.json'));
    expect(errorFor(withTool({ name: `T${'x'.repeat(60)}` }))).toMatch(/longer than 64 characters/);
  });

  it('reports every problem at once', () => {
    const message = errorFor({ ...validToolkit({ name: '', version: 'x' }), extra: 1 });
    expect(message).toMatch(/3 problems/);
    expect(message).toMatch(/name: must not be empty/);
    expect(message).toMatch(/version: "x" is not a semantic version/);
    expect(message).toMatch(/extra: unknown property/);
  });

  it('validates hand-built definitions in the constructor too', () => {
    expect(() => new ToolCatalog([validToolkit(), validToolkit()])).toThrow(
      /<toolkit #1>: name: duplicate toolkit name "Fixture"/,
    );
  });
});
