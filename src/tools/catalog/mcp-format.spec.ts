import { ListToolsResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { toMcpOutputSchema, toMcpStructuredContent, toMcpTool } from './formatted-schema';
import { loadToolCatalog } from './tool-catalog';
import { ToolSpecificationDefinition } from './tool-specification.types';

/** Every tool of the data files: the built-in toolkits and Agentline's. */
const catalog = loadToolCatalog();
const specs = catalog.list({ offset: 0, limit: 1000 }).items;
const spec = (name: string) => catalog.find(name)!;
/** What an MCP client checks structuredContent with (the SDK's default validator). */
const validator = new AjvJsonSchemaValidator();
const matches = (schema: Record<string, unknown> | undefined, value: unknown) =>
  validator.getValidator(schema!)(value).valid;

describe('the mcp format, checked against the MCP SDK', () => {
  it('covers the Agentline toolkit as well as the built-in ones', () => {
    expect(catalog.toolkits()).toEqual(expect.arrayContaining(['Agentline', 'Math', 'Weather']));
  });

  it.each(specs.map((s) => [s.qualifiedName, s] as const))(
    '%s is a Tool as the SDK reads it, with every hint and an object outputSchema',
    (_name, tool: ToolSpecificationDefinition) => {
      const mcp = toMcpTool(tool);
      // Equal after parsing: the SDK neither rejects nor drops anything of it.
      expect(ToolSchema.parse(mcp)).toEqual(mcp);
      expect(mcp.annotations).toEqual({
        title: expect.stringMatching(/\S/),
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
      // A tool that changes nothing cannot destroy anything, and doing nothing twice is idempotent.
      if (mcp.annotations?.readOnlyHint) {
        expect(mcp.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
      }
      expect(mcp.outputSchema).toMatchObject({ type: 'object' });
      expect(() => validator.getValidator(mcp.outputSchema!)).not.toThrow();
    },
  );

  it('lists the whole catalog as a ListToolsResult', () => {
    const result = { tools: specs.map(toMcpTool), nextCursor: '25' };
    expect(ListToolsResultSchema.parse(result)).toEqual(result);
  });

  it.each([
    // [tool, readOnly, destructive, idempotent, openWorld]
    ['Agentline.SendWhatsappMessage', false, false, false, true],
    ['Agentline.ScheduleFollowUp', false, false, false, true],
    ['Agentline.CancelFollowUp', false, true, true, false],
    ['Agentline.ListFollowUps', true, false, true, false],
    ['Google.SendEmail', false, false, false, true],
    ['Github.CreateIssue', false, false, false, true],
    ['Search.WebSearch', true, false, true, true],
    ['Math.Calculate', true, false, true, false],
    ['Time.CurrentTime', true, false, true, false],
  ] as const)(
    '%s: read-only %s, destructive %s, idempotent %s, open world %s',
    (name, ...hints) => {
      const [readOnlyHint, destructiveHint, idempotentHint, openWorldHint] = hints;
      expect(toMcpTool(spec(name)).annotations).toMatchObject({
        readOnlyHint,
        destructiveHint,
        idempotentHint,
        openWorldHint,
      });
    },
  );
});

describe('structuredContent and the outputSchema it matches', () => {
  it('wraps a value that is not an object in {result}', () => {
    const calculate = spec('Math.Calculate');
    expect(toMcpOutputSchema(calculate)).toEqual({
      type: 'object',
      properties: { result: { type: 'number' } },
      required: ['result'],
      additionalProperties: false,
    });
    expect(toMcpStructuredContent(calculate, 6.1416)).toEqual({ result: 6.1416 });
    expect(matches(toMcpOutputSchema(calculate), { result: 6.1416 })).toBe(true);
    expect(matches(toMcpOutputSchema(calculate), { result: '6' })).toBe(false);

    const changeCase = spec('Text.ChangeCase');
    expect(toMcpStructuredContent(changeCase, 'HELLO')).toEqual({ result: 'HELLO' });
    expect(matches(toMcpOutputSchema(changeCase), { result: 'HELLO' })).toBe(true);
  });

  it('passes an object value as it is, and its outputSchema is the output’s json_schema', () => {
    const convert = spec('Time.ConvertTimeZone');
    const value = { datetime: '2025-03-14T11:30:00-04:00', time_zone: 'UTC', utc_offset: '-04:00' };
    expect(toMcpOutputSchema(convert)).toBe(convert.output.json_schema);
    expect(toMcpStructuredContent(convert, value)).toBe(value);
    expect(matches(toMcpOutputSchema(convert), value)).toBe(true);
    expect(matches(toMcpOutputSchema(convert), { ...value, extra: 1 })).toBe(false);
  });

  it('lets a tool that may answer null say so inside {result}', () => {
    const statistics = spec('Math.Statistics');
    const nullable: ToolSpecificationDefinition = {
      ...statistics,
      output: { ...statistics.output, available_modes: ['value', 'null'] },
    };
    const schema = toMcpOutputSchema(nullable);
    expect(toMcpStructuredContent(nullable, null)).toEqual({ result: null });
    expect(toMcpStructuredContent(nullable, undefined)).toEqual({ result: null });
    expect(matches(schema, { result: null })).toBe(true);
    expect(matches(schema, { result: { mean: 2 } })).toBe(true);
    expect(toMcpStructuredContent(nullable, { mean: 2 })).toEqual({ result: { mean: 2 } });
  });

  it('keeps an MCP server’s own outputSchema and annotations, and wraps only its text', () => {
    const outputSchema = { type: 'object', properties: { sum: { type: 'number' } } };
    const annotations = { title: 'Get Sum', readOnlyHint: true };
    const fromServer: ToolSpecificationDefinition = {
      ...spec('Math.Statistics'),
      origin: { kind: 'mcp', server: 'everything', tool: 'get-sum', outputSchema, annotations },
    };
    expect(toMcpTool(fromServer)).toMatchObject({ outputSchema, annotations });
    expect(toMcpStructuredContent(fromServer, { sum: 3 })).toEqual({ sum: 3 });
    expect(toMcpStructuredContent(fromServer, 'The sum is 3.')).toEqual({
      result: 'The sum is 3.',
    });
    const bare: ToolSpecificationDefinition = {
      ...fromServer,
      origin: { kind: 'mcp', server: 'everything', tool: 'echo' },
    };
    expect(toMcpTool(bare)).not.toHaveProperty('outputSchema');
    expect(toMcpTool(bare)).not.toHaveProperty('annotations');
  });
});
