import { setImmediate as nextTurn } from 'node:timers/promises';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { Principal } from '../common/auth/principal';
import { ProblemException } from '../common/http/problem';
import { concurrencyFields, withFieldsOf } from '../common/http/rate-limit-policy';
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
export class AgentMcpEndpoint implements OnModuleDestroy {
  private readonly logger = new Logger(AgentMcpEndpoint.name);
  /** Open event streams by organization. */
  private readonly streams = new Map<string, number>();
  /** How to end each open event stream, for shutdown. */
  private readonly open = new Set<() => void>();
  /** Set at shutdown: the HTTP server's close waits for every open response. */
  private closing = false;

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

  /**
   * The server's event stream for this agent, on this replica. It opens with
   * `notifications/tools/list_changed`: notifications are not stored, so whatever changed while
   * the client held no stream (an idle time-out, a deploy, a network drop) is learnt by listing
   * again, once per stream. It ends when the token expires: the client opens another with a
   * fresh one.
   */
  async stream(
    principal: Principal,
    agentId: string,
    request: Request,
    response: Response,
  ): Promise<void> {
    // The client may be gone already (while the guard checked its token): `close` has fired, and
    // would never free what is taken below.
    if (response.destroyed) return;
    const organizationId = principal.organizationId;
    const held = this.streams.get(organizationId) ?? 0;
    if (held >= this.config.maxStreamsPerOrganization) {
      throw new ProblemException(
        'rate_limited',
        `The organization already holds ${held} open MCP event streams, the most MCP_MAX_STREAMS_PER_ORGANIZATION allows; close one or retry later.`,
        {
          headers: {
            ...withFieldsOf(
              response,
              concurrencyFields('mcp-streams', this.config.maxStreamsPerOrganization, held),
            ),
            'Retry-After': String(Math.ceil(this.config.streamIdleTimeoutMs / 1000)),
          },
        },
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
    let expiry: NodeJS.Timeout | undefined;
    const toolsChanged = () => {
      restartIdleTimer();
      server.sendToolListChanged().catch((error: unknown) => {
        this.logger.warn({ agentId, error: String(error) }, 'list_changed not sent');
      });
    };
    const unsubscribe = this.changes.subscribe(organizationId, agentId, toolsChanged);
    this.open.add(end);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(idle);
      clearTimeout(expiry);
      unsubscribe();
      this.open.delete(end);
      const left = (this.streams.get(organizationId) ?? 1) - 1;
      if (left > 0) this.streams.set(organizationId, left);
      else this.streams.delete(organizationId);
      void server.close();
    };
    response.on('close', release);
    try {
      restartIdleTimer();
      await connectAgentMcpServer(server, transport);
      // The transport answers once the stream ends; it is open, and can carry events, when its
      // headers are out.
      const handled = transport.handleRequest(request, response);
      await Promise.race([handled, headersSent(response)]);
      if (!released && response.statusCode === 200 && this.closing) {
        // Opened during shutdown: ended at once, and the client reconnects to a replica still up.
        // Held open, it would keep this process from exiting.
        end();
      } else if (!released && response.statusCode === 200) {
        if (principal.expiresAtMs !== undefined) {
          // Node fires a delay over 2^31 - 1 ms (24.8 days) at once: a token valid longer ends
          // its stream then, and the client opens another.
          const untilExpiry = Math.max(0, principal.expiresAtMs - Date.now());
          expiry = setTimeout(end, Math.min(untilExpiry, MAX_TIMER_MS));
        }
        toolsChanged();
      }
      await handled;
    } finally {
      // Ended, gone while it opened, or refused by the transport (a bad Accept).
      if (response.destroyed || response.writableEnded) release();
    }
  }

  /** Open streams would hold the HTTP server open: they end first, and clients reconnect elsewhere. */
  onModuleDestroy(): void {
    this.closing = true;
    for (const end of [...this.open]) end();
  }

  private server(principal: Principal, agentId: string) {
    return agentMcpServer(principal, agentId, {
      toolbox: this.toolbox,
      toolsPageSize: this.config.toolsPageSize,
      logger: this.logger,
    });
  }
}

/** The longest delay a Node timer keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolves once the response's headers are written, or it ended without. */
async function headersSent(response: Response): Promise<void> {
  while (!response.headersSent && !response.destroyed && !response.writableEnded) {
    await nextTurn();
  }
}
