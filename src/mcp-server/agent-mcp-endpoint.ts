import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { Principal } from '../common/auth/principal';
import { ProblemException } from '../common/http/problem';
import { AgentToolbox } from '../tools';
import { AgentToolChanges } from './agent-tool-changes';
import { agentMcpServer, connectAgentMcpServer } from './agent-mcp-server';
import { MCP_SERVER_CONFIG, McpServerConfig } from './mcp-server.config';

/**
 * `/v1/agents/{agent_id}/mcp` on MCP's Streamable HTTP transport, stateless: every POST gets a
 * fresh server and transport and is answered as JSON, so any replica answers any request
 * (docs/decisions.md, issue 21). A GET holds this replica's event stream for the agent: it
 * carries `notifications/tools/list_changed` when AgentToolChanges says the agent's tools
 * changed, and ends after MCP_STREAM_IDLE_TIMEOUT_MS without one (the client opens another).
 */
@Injectable()
export class AgentMcpEndpoint implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(AgentMcpEndpoint.name);
  /** Open event streams by organization. */
  private readonly streams = new Map<string, number>();
  /** How to end each open event stream, for shutdown. */
  private readonly open = new Set<() => void>();

  constructor(
    private readonly toolbox: AgentToolbox,
    private readonly changes: AgentToolChanges,
    @Inject(MCP_SERVER_CONFIG) private readonly config: McpServerConfig,
  ) {}

  /** One JSON-RPC message or batch; answered as `application/json` (202 for notifications). */
  async post(
    principal: Principal,
    agentId: string,
    request: Request,
    response: Response,
  ): Promise<void> {
    const server = this.server(principal, agentId);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => void server.close());
    await connectAgentMcpServer(server, transport);
    // The body was parsed (and bounded to 1 MiB) like every other JSON body of the API.
    await transport.handleRequest(request, response, request.body);
  }

  /** The server's event stream for this agent, on this replica. */
  async stream(
    principal: Principal,
    agentId: string,
    request: Request,
    response: Response,
  ): Promise<void> {
    const organizationId = principal.organizationId;
    const held = this.streams.get(organizationId) ?? 0;
    if (held >= this.config.maxStreamsPerOrganization) {
      throw new ProblemException(
        'rate_limited',
        `The organization already holds ${held} open MCP event streams, the most MCP_MAX_STREAMS_PER_ORGANIZATION allows; close one or retry later.`,
        { headers: { 'Retry-After': String(Math.ceil(this.config.streamIdleTimeoutMs / 1000)) } },
      );
    }
    this.streams.set(organizationId, held + 1);

    const server = this.server(principal, agentId);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const end = () => transport.closeStandaloneSSEStream();
    let idle: NodeJS.Timeout | undefined;
    const restartIdleTimer = () => {
      clearTimeout(idle);
      idle = setTimeout(end, this.config.streamIdleTimeoutMs);
    };
    const unsubscribe = this.changes.subscribe(organizationId, agentId, () => {
      restartIdleTimer();
      server.sendToolListChanged().catch((error: unknown) => {
        this.logger.warn({ agentId, error: String(error) }, 'list_changed not sent');
      });
    });
    this.open.add(end);
    response.on('close', () => {
      clearTimeout(idle);
      unsubscribe();
      this.open.delete(end);
      const left = (this.streams.get(organizationId) ?? 1) - 1;
      if (left > 0) this.streams.set(organizationId, left);
      else this.streams.delete(organizationId);
      void server.close();
    });
    restartIdleTimer();
    await connectAgentMcpServer(server, transport);
    await transport.handleRequest(request, response);
  }

  /** Open streams would hold the HTTP server open: they end first, and clients reconnect elsewhere. */
  onModuleDestroy(): void {
    for (const end of [...this.open]) end();
  }

  onApplicationShutdown(): void {
    this.onModuleDestroy();
  }

  private server(principal: Principal, agentId: string) {
    return agentMcpServer(principal, agentId, {
      toolbox: this.toolbox,
      toolsPageSize: this.config.toolsPageSize,
      logger: this.logger,
    });
  }
}
