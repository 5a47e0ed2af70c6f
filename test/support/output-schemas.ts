import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { toMcpStructuredContent } from '../../src/tools/catalog/formatted-schema';
import type { OutputDefinition } from '../../src/tools/catalog/tool-specification.types';
import type { TestApp } from './test-app';

/**
 * The suites that run each toolkit's tools against its fake (or with nothing, for those that call
 * no one), checking every succeeded output against the tool's outputSchema. Together, every
 * toolkit of the catalog: `expectEveryOutputChecked` fails for one that is in neither.
 */
export const OUTPUT_SCHEMA_SUITES = {
  'tool-execution': ['Agentline', 'Github', 'Math', 'Text', 'Time', 'Weather'],
  'tool-providers': ['Google', 'Search', 'Slack'],
} as const;

/** A tool as `GET /v1/tools/specs?format=mcp` publishes it. */
interface PublishedTool {
  qualifiedName: string;
  output: OutputDefinition;
  outputSchema?: Record<string, unknown>;
}

interface PublishedSpec {
  qualified_name: string;
  output: OutputDefinition;
  formatted_schema: { outputSchema?: Record<string, unknown> };
}

/** What an MCP client checks structuredContent with (the SDK's default: ajv, formats on). */
const validator = new AjvJsonSchemaValidator();
/** By lower-cased qualified name; the catalog is the same in every app of a run. */
const published = new Map<string, PublishedTool>();
const toolNames = new Map<string, string>();
const checked = new Set<string>();

/**
 * Notes which catalog tool `toolId` is, reading its toolkit's `mcp` format once: every output
 * it then succeeds with is checked against the `outputSchema` published for it.
 */
export async function learnOutputSchema(
  app: TestApp,
  auth: Record<string, string>,
  toolId: string,
  name: string,
): Promise<void> {
  const key = name.replace(/@.*$/, '').toLowerCase();
  if (!published.has(key)) {
    const toolkit = key.split('.')[0];
    const res = await app
      .http()
      .get(`/v1/tools/specs?format=mcp&toolkit=${encodeURIComponent(toolkit)}&limit=200`)
      .set(auth)
      .expect(200);
    for (const spec of res.body.data.items as PublishedSpec[]) {
      published.set(spec.qualified_name.toLowerCase(), {
        qualifiedName: spec.qualified_name,
        output: spec.output,
        outputSchema: spec.formatted_schema.outputSchema,
      });
    }
  }
  toolNames.set(toolId, key);
}

/**
 * Fails when a succeeded execution's output, as MCP's structuredContent, does not match the
 * tool's published outputSchema, exactly as an MCP client would check it.
 */
export function expectOutputMatchesSchema(
  toolId: string,
  data: { status?: string; output?: { value?: unknown } },
): void {
  const key = toolNames.get(toolId);
  const tool = key === undefined ? undefined : published.get(key);
  if (tool === undefined || data.status !== 'succeeded') return;
  // An MCP server's tool may declare none; every catalog file's tool has one (mcp-format.spec.ts).
  const { outputSchema } = tool;
  if (outputSchema === undefined) return;
  const value = data.output?.value;
  const structuredContent = toMcpStructuredContent(
    { origin: { kind: 'builtin' }, output: tool.output },
    value,
  );
  CallToolResultSchema.parse({
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent,
  });
  const result = validator.getValidator(outputSchema)(structuredContent);
  if (!result.valid) {
    throw new Error(
      `${tool.qualifiedName}: output does not match its outputSchema: ${result.errorMessage}\n` +
        JSON.stringify(structuredContent, null, 2),
    );
  }
  checked.add(tool.qualifiedName);
}

/**
 * Every tool of the suite's toolkits has had a succeeded output checked in this test file, and
 * every toolkit of the catalog belongs to one of OUTPUT_SCHEMA_SUITES.
 */
export async function expectEveryOutputChecked(
  app: TestApp,
  auth: Record<string, string>,
  suite: keyof typeof OUTPUT_SCHEMA_SUITES,
): Promise<void> {
  const res = await app.http().get('/v1/tools/specs?format=mcp&limit=200').set(auth).expect(200);
  const catalog = (res.body.data.items as PublishedSpec[]).map((spec) => spec.qualified_name);
  const toolkitOf = (name: string) => name.split('.')[0];
  const covered = Object.values(OUTPUT_SCHEMA_SUITES).flat() as string[];
  expect([...new Set(catalog.map(toolkitOf))].sort()).toEqual([...covered].sort());
  const mine = new Set<string>(OUTPUT_SCHEMA_SUITES[suite]);
  const expected = catalog.filter((name) => mine.has(toolkitOf(name))).sort();
  expect([...checked].sort()).toEqual(expected);
}
