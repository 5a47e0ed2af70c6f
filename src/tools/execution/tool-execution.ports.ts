/**
 * What execution needs from the OAuth2 and MCP parts of ToolsModule, as injection tokens of its
 * own so that either may be absent from a deployment. ToolsModule binds them with `useExisting`:
 * `{ provide: OAuth2AccessTokens, useExisting: OAuth2GrantsService }` and
 * `{ provide: McpToolCalls, useExisting: McpToolkits }`. Unbound, OAuth2 tools answer 409
 * (no live token) and MCP tools 422 `not_executable`.
 */

/** Mirrors `OAuth2GrantsService.accessToken` (src/tools/oauth2/oauth2-grants.service.ts). */
export abstract class OAuth2AccessTokens {
  /** A live (refreshed if need be) access token of the agent's grant, or null when there is none. */
  abstract accessToken(
    organizationId: string,
    agentId: string,
    providerId: string,
  ): Promise<string | null>;
}

export type McpCallResult = { value: unknown } | { error: string };

/**
 * Mirrors `McpToolkits.call` (src/tools/mcp/mcp-toolkits.service.ts): MCP `tools/call` on a
 * configured server. Throws an error whose `code` is `mcp_timeout`, `mcp_unavailable` or
 * `mcp_error` when the call itself fails.
 */
export abstract class McpToolCalls {
  abstract call(
    server: string,
    tool: string,
    input: Record<string, unknown>,
    options: { timeoutMs: number },
  ): Promise<McpCallResult>;
}
