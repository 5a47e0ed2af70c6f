import { Controller, Delete, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PROTECTED_RESOURCE_METADATA_PATH, ProtectedResource } from '../common/auth/jwt-auth.guard';
import { CurrentPrincipal, Principal, Public } from '../common/auth/principal';
import { findUnacceptableValue } from '../common/http/input-guards';
import { validationFailed } from '../common/http/problem';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { AgentMcpEndpoint } from './agent-mcp-endpoint';

export const MCP_PATH = 'v1/agents/:agentId/mcp';

/** As `agent_id` in a body: 1 to 200 characters, no whitespace. */
function checkedAgentId(agentId: string): string {
  if (agentId.length === 0 || agentId.length > 200 || /\s/.test(agentId)) {
    throw validationFailed([
      { field: 'agent_id', message: 'agent_id must be 1 to 200 characters without whitespace' },
    ]);
  }
  return agentId;
}

/** The longest JSON-RPC id taken as a string; an integer id must be a safe one. */
export const MAX_REQUEST_ID_LENGTH = 200;

/**
 * Why a POST body is refused before the SDK reads it, if it is: a batch (MCP 2025-06-18 removed
 * JSON-RPC batching; one request each keeps the shared rate limit per request), or an id that the
 * executions table could not store or that is too long to echo.
 */
function refusedMessage(body: unknown): string | undefined {
  if (Array.isArray(body)) return 'JSON-RPC batches are not supported: send one message per POST.';
  if (body === null || typeof body !== 'object' || !('id' in body)) return undefined;
  const { id } = body;
  const acceptable =
    (typeof id === 'string' &&
      id.length <= MAX_REQUEST_ID_LENGTH &&
      findUnacceptableValue(id) === undefined) ||
    (typeof id === 'number' && Number.isSafeInteger(id));
  return acceptable
    ? undefined
    : `The id must be a string of at most ${MAX_REQUEST_ID_LENGTH} characters without NUL or unpaired surrogates, or a safe integer.`;
}

/**
 * The agent's MCP server (docs/mcp.md). JSON-RPC, not REST: it is left out of openapi.json, and
 * the SDK's transport writes the answers (no `data` wrapper). The JWT guard, the rate limit and
 * the body limit apply as on every /v1 route; McpOriginCheck runs before them.
 */
@ApiExcludeController()
@ProtectedResource()
@Controller(MCP_PATH)
export class McpServerController {
  constructor(private readonly endpoint: AgentMcpEndpoint) {}

  @Post()
  async post(
    @CurrentPrincipal() principal: Principal,
    @Param('agentId') agentId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    checkedAgentId(agentId);
    const refused = refusedMessage(request.body);
    if (refused) {
      response
        .status(400)
        .json({ jsonrpc: '2.0', error: { code: -32600, message: refused }, id: null });
      return;
    }
    await this.endpoint.post(principal, agentId, request, response);
  }

  @Get()
  async stream(
    @CurrentPrincipal() principal: Principal,
    @Param('agentId') agentId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    await this.endpoint.stream(principal, checkedAgentId(agentId), request, response);
  }

  /** Stateless: there is no session to end (MCP transports: a server MAY answer 405). */
  @Delete()
  end(@Param('agentId') agentId: string, @Res() response: Response): void {
    checkedAgentId(agentId);
    response
      .status(405)
      .set('Allow', 'GET, POST')
      .json({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'This server keeps no sessions: there is none to end.' },
        id: null,
      });
  }
}

/**
 * The endpoint's OAuth 2.0 protected resource metadata (RFC 9728), where the 401's
 * `WWW-Authenticate` points: what the resource is and which authorization server issues its
 * tokens (JWT_ISSUER), so that an MCP host can discover how to get one.
 */
@ApiExcludeController()
@Controller()
export class ProtectedResourceMetadataController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  // Public: it is what a client without a token reads to learn how to get one.
  @Public()
  @Get(`.well-known/oauth-protected-resource/${MCP_PATH}`)
  metadata(
    @Param('agentId') agentId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): void {
    checkedAgentId(agentId);
    const issuer = this.config.jwt.issuer;
    // The path as sent, as the 401's WWW-Authenticate names it: the URL the host connected to.
    const resource = `${this.config.publicUrl}${request.path.slice(PROTECTED_RESOURCE_METADATA_PATH.length)}`;
    response
      .status(200)
      .set('Cache-Control', 'public, max-age=3600')
      .json({
        resource,
        ...(issuer && { authorization_servers: [issuer] }),
        bearer_methods_supported: ['header'],
        resource_name: `agentline MCP server of agent ${agentId}`,
        resource_documentation: `${this.config.publicUrl}/docs`,
      });
  }
}
