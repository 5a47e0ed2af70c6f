import { aTool } from './factories';
import { expectOutputMatchesSchema, learnOutputSchema } from './output-schemas';
import { TestApp } from './test-app';

export interface ExecutionOutput {
  value?: unknown;
  error?: string;
}

export interface ExecutionRecord {
  id: string;
  tool_id: string;
  agent_id: string;
  qualified_name: string;
  input: Record<string, unknown>;
  output: ExecutionOutput;
  status: string;
  error: string | null;
  truncated: boolean;
  duration_ms: number;
  mcp_request_id: string | null;
  organization_id: string;
  created_by: string;
  created_at: number;
}

export interface ExecutionResult {
  execution_id: string;
  status: string;
  output: ExecutionOutput;
  duration_ms: number;
}

/**
 * Attach, execute and list executions of tools over HTTP. Both arguments are functions: specs
 * start the app in beforeAll and change the caller per test.
 */
export function toolRequests(app: () => TestApp, auth: () => Record<string, string>) {
  const http = () => app().http();
  const attach = async (name: string, overrides: Record<string, unknown> = {}) => {
    const tool = (
      await http()
        .post('/v1/tools')
        .set(auth())
        .send(aTool({ name, ...overrides }))
        .expect(201)
    ).body.data as { id: string; authorization_status: string };
    await learnOutputSchema(app(), auth(), tool.id, name);
    return tool;
  };
  /** Every output it succeeds with is checked against the tool's published outputSchema. */
  const execute = (toolId: string, input: unknown, headers = auth()) =>
    http()
      .post(`/v1/tools/${toolId}/execute`)
      .set(headers)
      .send({ input })
      .expect((res) => {
        if (res.status === 200) expectOutputMatchesSchema(toolId, res.body.data);
      });
  /** Executes and expects a 200; answers `data`. */
  const run = async (toolId: string, input: Record<string, unknown>) =>
    (await execute(toolId, input).expect(200)).body.data as ExecutionResult;
  const executions = async (toolId: string, query = '') =>
    (await http().get(`/v1/tools/${toolId}/executions${query}`).set(auth()).expect(200)).body
      .data as { items: ExecutionRecord[]; offset: number; total_count: number };
  return { attach, execute, run, executions };
}
