import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { readEnvironment, toInteger, toList } from '../config/environment';

/** The MCP endpoint's variables (docs/mcp.md, "Configuration"). */
export class McpServerEnvironment {
  /**
   * Browser origins, besides PUBLIC_URL's, whose pages may call the endpoint (comma-separated,
   * `https://app.example.com`); any other `Origin` is refused (DNS rebinding).
   */
  @IsOptional()
  @Transform(toList)
  @IsString({ each: true })
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { each: true },
  )
  MCP_ALLOWED_ORIGINS: string[] = [];
  /** Event streams (`GET`) an organization may hold open at once, across its agents. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100_000)
  MCP_MAX_STREAMS_PER_ORGANIZATION: number = 50;
  /** An event stream that has carried nothing for this long is ended; the client opens another. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  MCP_STREAM_IDLE_TIMEOUT_MS: number = 300_000;
  /** Tools per `tools/list` page. */
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
