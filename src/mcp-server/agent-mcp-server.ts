import { Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  JSONRPCError,
  JSONRPCRequest,
  ListToolsRequestSchema,
  ListToolsResult,
  McpError,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Principal } from '../common/auth/principal';
import { findUnacceptableValue, UNACCEPTABLE_MESSAGES } from '../common/http/input-guards';
import { ProblemException } from '../common/http/problem';
import { JsonValue } from '../common/json';
import { AgentToolbox, AgentToolCall } from '../tools';

const SERVER_INFO = { name: 'agentline', version: '1.0.0' };

/** What `_meta` of a result names the execution record with (GET /v1/tools/{id}/executions). */
export const EXECUTION_ID_META = 'dev.agentline/execution_id';
/** Where a tool's user must go to authorize it, in `_meta` of its authorization-required result. */
export const OAUTH2_URL_META = 'dev.agentline/oauth2_url';
/** The attachment's authorization status, in `_meta` of its authorization-required result. */
export const AUTHORIZATION_STATUS_META = 'dev.agentline/authorization_status';

const INSTRUCTIONS =
  "This agent's tools in agentline: the tools attached to it and authorized, and agentline's own " +
  'toolkit (send WhatsApp and Messenger messages through its channels, schedule and manage ' +
  'follow-ups). A tool that needs its user to authorize it answers with a link to send them to.';

export interface AgentMcpServerOptions {
  toolbox: AgentToolbox;
  toolsPageSize: number;
  logger: Logger;
}

/**
 * A fresh MCP server for one request (or one event stream) of one agent: the endpoint is
 * stateless (docs/decisions.md, issue 21), so nothing outlives the request but what is stored.
 */
export function agentMcpServer(
  principal: Principal,
  agentId: string,
  { toolbox, toolsPageSize, logger }: AgentMcpServerOptions,
): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: INSTRUCTIONS,
  });

  server.setRequestHandler(ListToolsRequestSchema, async (request): Promise<ListToolsResult> => {
    const after =
      request.params?.cursor === undefined ? undefined : readCursor(request.params.cursor);
    const tools = await toolbox
      .list(principal.organizationId, agentId)
      .catch((error: unknown) => rethrown(error, logger));
    const rest = after === undefined ? tools : tools.filter((tool) => tool.name > after);
    const page = rest.slice(0, toolsPageSize);
    return {
      // The catalog's JSON Schema types are narrower than the SDK's open ones.
      tools: page as unknown as ListToolsResult['tools'],
      ...(rest.length > page.length && { nextCursor: cursorAfter(page[page.length - 1].name) }),
    };
  });

  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const { name, arguments: input = {} } = request.params;
      try {
        const call = await toolbox.call(
          principal,
          agentId,
          name,
          input as Record<string, JsonValue>,
          {
            mcpRequestId: String(extra.requestId),
          },
        );
        return toCallToolResult(call);
      } catch (error) {
        // A refusal the model can act on (a busy worker, a tool that cannot run here) is its to read.
        if (error instanceof ProblemException && isRefusal(error)) {
          return { isError: true, content: [{ type: 'text', text: error.detail }] };
        }
        return rethrown(error, logger);
      }
    },
  );

  return server;
}

/** The requests this server answers, by method, with the schema their params must fit. */
const REQUEST_SCHEMAS = new Map<string, { safeParse: (value: unknown) => { success: boolean } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

const refusals = new Logger('AgentMcpServer');

/**
 * What is wrong with a request before its method runs, as a JSON-RPC error: params that do not fit
 * the method are InvalidParams (-32602), as JSON-RPC says (the SDK would parse them in its handler
 * and answer an internal error, -32603); so are `tools/call` arguments holding what no REST body
 * may (a NUL, an unpaired surrogate, a number beyond a double, an object too wide), with the
 * problem's `validation_failed` data.
 */
function refusal(message: JSONRPCRequest): JSONRPCError['error'] | undefined {
  // A Map: a method named `constructor` finds nothing.
  const schema = REQUEST_SCHEMAS.get(message.method);
  if (!schema) return undefined;
  if (!schema.safeParse(message).success) {
    return {
      code: ErrorCode.InvalidParams,
      message: `The params of ${message.method} are not valid.`,
    };
  }
  const unacceptable =
    message.method === 'tools/call'
      ? findUnacceptableValue(message.params?.arguments, 'arguments')
      : undefined;
  if (!unacceptable) return undefined;
  const errors = [
    { field: unacceptable.field, message: UNACCEPTABLE_MESSAGES[unacceptable.reason] },
  ];
  return {
    code: ErrorCode.InvalidParams,
    message: 'The arguments hold a value no tool accepts.',
    data: { code: 'validation_failed', errors },
  };
}

/**
 * Connects the server to its transport, answering a request that `refusal` refuses without
 * running it.
 */
export async function connectAgentMcpServer(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  const handle = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const error = isJSONRPCRequest(message) ? refusal(message) : undefined;
    if (isJSONRPCRequest(message) && error) {
      // The request's HTTP exchange may be gone (its client left): nothing is left to answer.
      transport.send({ jsonrpc: '2.0', id: message.id, error }).catch((failure: unknown) => {
        refusals.warn({ error: String(failure) }, 'MCP refusal not sent');
      });
      return;
    }
    handle?.(message, extra);
  };
}

/** A page ends after a tool's name: the next one starts after it, whatever came or went since. */
const cursorAfter = (name: string) => Buffer.from(name, 'utf8').toString('base64url');

function readCursor(cursor: string): string {
  const name = Buffer.from(cursor, 'base64url').toString('utf8');
  if (name.length === 0 || cursorAfter(name) !== cursor) {
    throw new McpError(ErrorCode.InvalidParams, 'The cursor is not one this server gave.');
  }
  return name;
}

/** The tool's output as MCP shows it: an object as `structuredContent`, and as JSON text. */
export function toCallToolResult(call: AgentToolCall): CallToolResult {
  if (call.kind === 'authorization_required') {
    // No structuredContent: it would have to fit the tool's outputSchema (the SDK's client checks
    // it even on an error and throws). The link is in the text (the detail names it), for the
    // model, and in `_meta`, for the host.
    return {
      isError: true,
      content: [{ type: 'text', text: call.detail }],
      _meta: {
        [AUTHORIZATION_STATUS_META]: call.authorizationStatus,
        ...(call.oauth2Url && { [OAUTH2_URL_META]: call.oauth2Url }),
      },
    };
  }
  const meta = { [EXECUTION_ID_META]: call.executionId };
  if ('error' in call.output) {
    return {
      isError: true,
      content: [{ type: 'text', text: call.output.error }],
      _meta: meta,
    };
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(call.output.value) }],
    ...(call.structuredContent && { structuredContent: call.structuredContent }),
    _meta: meta,
  };
}

const isRefusal = (error: ProblemException) =>
  !isBadParams(error) && (error.status < 500 || error.code === 'busy');

const isBadParams = (error: ProblemException) =>
  error.code === 'validation_failed' || error.code === 'unknown_tool';

/**
 * A failure in MCP's terms: bad input or an unknown tool is a JSON-RPC error (InvalidParams, with
 * the problem's code and `errors` as its data); anything else an internal error, logged, and
 * answered without its message unless it is a problem meant for clients.
 */
function rethrown(error: unknown, logger: Logger): never {
  if (error instanceof McpError) throw error;
  if (error instanceof ProblemException) {
    throw new McpError(
      isBadParams(error) ? ErrorCode.InvalidParams : ErrorCode.InternalError,
      error.detail,
      { code: error.code, ...(error.errors && { errors: error.errors }) },
    );
  }
  logger.error(error instanceof Error ? error : String(error), 'MCP request failed');
  throw new McpError(ErrorCode.InternalError, 'Internal error; it is logged.');
}
