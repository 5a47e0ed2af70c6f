import { LoggerService } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResult,
  CallToolResultSchema,
  Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpServerConfig } from './mcp-server.config';
import { McpServerIdentity } from './mcp-tool.mapper';

export interface McpConnectionEvents {
  /** The server sent notifications/tools/list_changed. */
  onToolListChanged: () => void;
  /** The connection ended without `close()` (the child process exited, the stream ended). */
  onClosed: () => void;
}

const CLIENT_INFO = { name: 'agentline', version: '1.0.0' };
// A server that keeps handing out cursors must not keep us listing forever.
const MAX_TOOL_PAGES = 100;
const MAX_STDERR_LINE = 500;
// Ending an HTTP session is a courtesy to the server; an unreachable one must not delay shutdown.
const TERMINATE_SESSION_MS = 1000;

/** One live MCP session with one configured server, over stdio or Streamable HTTP. */
export class McpServerConnection {
  private closing = false;

  private constructor(
    private readonly client: Client,
    private readonly transport: Transport,
    readonly identity: McpServerIdentity,
  ) {}

  /** Starts the transport and runs initialize; on failure everything started is closed again. */
  static async open(
    config: McpServerConfig,
    timeoutMs: number,
    events: McpConnectionEvents,
    logger: LoggerService,
  ): Promise<McpServerConnection> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const transport = createTransport(config, logger);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      events.onToolListChanged();
      return Promise.resolve();
    });
    // Transport errors also reject the request they belong to; logging them twice adds nothing.
    client.onerror = (error) => logger.debug?.(`MCP server "${config.id}": ${error.message}`);
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (err: unknown) {
      await client.close().catch(() => undefined);
      throw err;
    }
    const info = client.getServerVersion();
    const instructions = client.getInstructions();
    const connection = new McpServerConnection(client, transport, {
      name: info?.name ?? config.id,
      version: info?.version ?? '',
      ...(info?.title !== undefined && { title: info.title }),
      ...(instructions !== undefined && { instructions }),
    });
    // Set only now, synchronously after connect: a failed start is reported by connect itself.
    client.onclose = () => {
      if (!connection.closing) events.onClosed();
    };
    return connection;
  }

  /** tools/list, following `nextCursor` to the last page. */
  async listTools(timeoutMs: number): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await this.client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: timeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
    }
    throw new Error(`tools/list still had more pages after ${MAX_TOOL_PAGES}`);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    timeoutMs: number,
  ): Promise<CallToolResult> {
    const result = await this.client.callTool({ name, arguments: args }, CallToolResultSchema, {
      timeout: timeoutMs,
    });
    // The SDK's return type also covers a pre-2024-11 shape that this schema never lets through.
    return CallToolResultSchema.parse(result);
  }

  /**
   * Ends the session: an HTTP server is told so (DELETE), a stdio server's process gets its
   * stdin closed, then SIGTERM, then SIGKILL if it lingers.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.transport instanceof StreamableHTTPClientTransport) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.transport.terminateSession().catch(() => undefined),
        new Promise((resolve) => {
          timer = setTimeout(resolve, TERMINATE_SESSION_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    await this.client.close();
  }
}

function createTransport(config: McpServerConfig, logger: LoggerService): Transport {
  if (config.transport === 'http') {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: config.env,
    ...(config.cwd !== undefined && { cwd: config.cwd }),
    // Piped, not inherited: the server's chatter must not interleave with our JSON logs.
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() !== '') {
        logger.debug?.(`MCP server "${config.id}" stderr: ${line.slice(0, MAX_STDERR_LINE)}`);
      }
    }
  });
  return transport;
}
