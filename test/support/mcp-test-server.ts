import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CallToolResult,
  ListToolsRequestSchema,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';

/** A tool the test server offers: its MCP declaration and what a call answers. */
export interface McpTestTool {
  tool: Tool;
  run: (args: Record<string, unknown>) => Promise<CallToolResult> | CallToolResult;
}

export interface McpTestServerOptions {
  /** Fixed port (e.g. to bring a server up where agentline already expects one); 0 = any. */
  port?: number;
  /** When set, requests without exactly this Authorization header get 401. */
  authorization?: string;
  /** tools/list page size, so that clients must follow cursors. */
  pageSize?: number;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** Tools whose input schemas cover every mapping rule: enum, integer, array, object, anyOf… */
export function issueTrackerTools(): McpTestTool[] {
  return [
    {
      tool: {
        name: 'add',
        description: 'Adds two integers.',
        inputSchema: {
          type: 'object',
          properties: {
            a: { type: 'integer', description: 'First addend' },
            b: { type: 'integer', description: 'Second addend' },
          },
          required: ['a', 'b'],
        },
        annotations: { readOnlyHint: true, idempotentHint: true },
      },
      run: (args) => text(String(Number(args.a) + Number(args.b))),
    },
    {
      tool: {
        name: 'search-issues',
        title: 'Search issues',
        description: 'Finds issues matching a query.',
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Free text' },
            state: { type: 'string', enum: ['open', 'closed'], description: 'Issue state' },
            labels: { type: 'array', items: { type: 'string' }, description: 'Labels to match' },
            limit: { type: 'integer', description: 'At most this many' },
            filters: { type: 'object', properties: { author: { type: 'string' } } },
            since: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'ISO date' },
            'page-size': { type: 'number' },
          },
          required: ['query'],
        },
        outputSchema: {
          type: 'object',
          properties: { received: { type: 'object' } },
          required: ['received'],
        },
      },
      run: (args) => ({
        content: [{ type: 'text', text: JSON.stringify(args) }],
        structuredContent: { received: args },
      }),
    },
    {
      tool: {
        name: 'fail',
        description: 'Always reports a failure.',
        inputSchema: { type: 'object', properties: {} },
      },
      run: () => ({
        isError: true,
        content: [
          { type: 'text', text: 'The tracker is read-only today.' },
          { type: 'text', text: 'Try tomorrow.' },
        ],
      }),
    },
    {
      tool: {
        name: 'slow',
        description: 'Answers after a delay.',
        inputSchema: {
          type: 'object',
          properties: { ms: { type: 'integer', description: 'Delay in milliseconds' } },
        },
      },
      run: async (args) => {
        await new Promise((resolve) => setTimeout(resolve, Number(args.ms ?? 0)));
        return text('done');
      },
    },
  ];
}

/**
 * A real MCP server (the SDK's low-level Server) over Streamable HTTP on 127.0.0.1, one session
 * per client, whose tool list a test can change at run time.
 */
export class McpTestServer {
  /** Arguments of every tools/call, in order. */
  readonly calls: { name: string; arguments: Record<string, unknown> }[] = [];

  private readonly tools = new Map<string, McpTestTool>();
  private readonly sessions = new Map<
    string,
    { server: Server; transport: StreamableHTTPServerTransport }
  >();

  private readonly http: HttpServer;

  private constructor(
    private readonly options: McpTestServerOptions,
    tools: McpTestTool[],
  ) {
    for (const tool of tools) this.tools.set(tool.tool.name, tool);
    this.http = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  }

  static async start(
    tools: McpTestTool[] = issueTrackerTools(),
    options: McpTestServerOptions = {},
  ): Promise<McpTestServer> {
    const instance = new McpTestServer(options, tools);
    await new Promise<void>((resolve, reject) => {
      instance.http.once('error', reject);
      instance.http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    return instance;
  }

  get port(): number {
    return (this.http.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Adds (or replaces) a tool; with `notify`, every session gets tools/list_changed. */
  async addTool(tool: McpTestTool, { notify = true } = {}): Promise<void> {
    this.tools.set(tool.tool.name, tool);
    if (notify) await this.notifyToolListChanged();
  }

  async removeTool(name: string, { notify = true } = {}): Promise<void> {
    this.tools.delete(name);
    if (notify) await this.notifyToolListChanged();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((s) => s.transport.close()));
    this.sessions.clear();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private async notifyToolListChanged(): Promise<void> {
    await Promise.allSettled(
      [...this.sessions.values()].map((s) => s.server.sendToolListChanged()),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (
      this.options.authorization !== undefined &&
      req.headers.authorization !== this.options.authorization
    ) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (session !== undefined) {
      await session.transport.handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST' || sessionId !== undefined) {
      res.writeHead(sessionId === undefined ? 400 : 404).end();
      return;
    }
    const server = this.createMcpServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { server, transport });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  private createMcpServer(): Server {
    const server = new Server(
      { name: 'acme/issue-tracker', title: 'Acme Issue Tracker', version: '2.3' },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: 'Issue tracker used by the agentline tests.',
      },
    );
    const pageSize = this.options.pageSize ?? 2;
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const all = [...this.tools.values()].map((t) => t.tool);
      const next = start + pageSize;
      return {
        tools: all.slice(start, next),
        ...(next < all.length && { nextCursor: String(next) }),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const args = request.params.arguments ?? {};
      this.calls.push({ name: request.params.name, arguments: args });
      const tool = this.tools.get(request.params.name);
      if (tool === undefined)
        return { isError: true, content: [{ type: 'text', text: 'no such tool' }] };
      return tool.run(args);
    });
    return server;
  }
}
