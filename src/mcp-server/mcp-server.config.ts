import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { Env, EnvGroup } from '../config/env-declaration';
import { readEnvironment, toInteger, toList } from '../config/environment';

/** The MCP endpoint's variables (docs/mcp.md, "Configuration"). */
@EnvGroup('MCP server: agentline as one')
export class McpServerEnvironment {
  @Env(
    "Browser origins allowed to call the MCP endpoint (`/v1/agents/{agent_id}/mcp`) besides `PUBLIC_URL`'s and `CORS_ORIGINS`; any other `Origin` answers `403` (DNS rebinding; [docs/mcp.md](docs/mcp.md)); a page on another origin also needs `CORS_ORIGINS` to read the answers.",
    { example: 'https://app.example.com' },
  )
  @IsOptional()
  @Transform(toList)
  @IsString({ each: true })
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { each: true },
  )
  MCP_ALLOWED_ORIGINS: string[] = [];
  @Env(
    'MCP event streams (`GET`) one organization may hold open at once on one replica, across its agents.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100_000)
  MCP_MAX_STREAMS_PER_ORGANIZATION: number = 50;
  @Env(
    'An MCP event stream that carried no notification for this long is ended (the client reopens it); 5 min by default.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  MCP_STREAM_IDLE_TIMEOUT_MS: number = 300_000;
  @Env('Tools per MCP `tools/list` page.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1000)
  MCP_TOOLS_PAGE_SIZE: number = 100;
}

export interface McpServerConfig {
  /** Origins allowed besides PUBLIC_URL's, normalised as `URL.origin` gives them. */
  allowedOrigins: string[];
  maxStreamsPerOrganization: number;
  streamIdleTimeoutMs: number;
  toolsPageSize: number;
}

export const MCP_SERVER_CONFIG = Symbol('MCP_SERVER_CONFIG');

/** Reads and checks the MCP endpoint's variables; throws ConfigError naming every bad one. */
export function readMcpServerConfig(env: NodeJS.ProcessEnv): McpServerConfig {
  const vars = readEnvironment(McpServerEnvironment, env);
  return {
    allowedOrigins: vars.MCP_ALLOWED_ORIGINS.map((origin) => new URL(origin).origin),
    maxStreamsPerOrganization: vars.MCP_MAX_STREAMS_PER_ORGANIZATION,
    streamIdleTimeoutMs: vars.MCP_STREAM_IDLE_TIMEOUT_MS,
    toolsPageSize: vars.MCP_TOOLS_PAGE_SIZE,
  };
}
