import { availableParallelism } from 'node:os';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { AppConfig } from '../config/app-config';
import { Env, EnvGroup } from '../config/env-declaration';
import { ConfigError, readEnvironment, toInteger } from '../config/environment';
import { McpServerConfig, readMcpServers } from './mcp/mcp-server.config';
import { OAuth2Config, readOAuth2Config } from './oauth2/oauth2.config';
import { ConfiguredToolkit } from './toolkits/builtin-toolkit';
import { BUILTIN_TOOLKITS } from './toolkits';

/** Tool execution and MCP variables; OAuth2's and each toolkit's are read by their own classes. */
@EnvGroup('Tools')
export class ToolsEnvironment {
  @Env(
    'MCP servers whose tools join the catalog, a JSON array ([docs/toolkits.md](docs/toolkits.md)); not with `MCP_SERVERS_FILE`. Their `env` and `headers` values are never logged.',
    { secret: true, type: 'JSON array' },
  )
  @IsOptional()
  @IsString()
  MCP_SERVERS?: string;
  @Env('The path of a file holding the `MCP_SERVERS` array instead; not with `MCP_SERVERS`.', {
    type: 'file path',
  })
  @IsOptional()
  @IsString()
  MCP_SERVERS_FILE?: string;
  @Env("How often every MCP server's tool list is read again.")
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  MCP_REFRESH_MS: number = 300_000;
  @Env(
    "Time-out of one tool execution; a hard stop (a CPU-bound tool's worker thread is terminated).",
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  TOOL_EXECUTION_TIMEOUT_MS: number = 30_000;
  @Env('Worker threads that run the CPU-bound built-in tools (Text, Math).', {
    default: 'the cores less one, 1 to 4',
  })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(64)
  TOOL_WORKER_THREADS: number = Math.max(1, Math.min(4, availableParallelism() - 1));
}

export interface ToolsConfig {
  oauth2: OAuth2Config;
  /** MCP servers whose tools join the catalog, and how often their tool lists are re-read. */
  mcp: { servers: McpServerConfig[]; refreshMs: number };
  /** Default time-out of one tool call; threads of the CPU-bound tools. */
  toolExecution: { timeoutMs: number; workerThreads: number };
  /** The built-in toolkits (src/tools/toolkits/), their environment read. */
  toolkits: ConfiguredToolkit[];
}

export const TOOLS_CONFIG = Symbol('TOOLS_CONFIG');

/** Reads and checks ToolsModule's variables; throws ConfigError naming every bad one. */
export function readToolsConfig(env: NodeJS.ProcessEnv, shared: AppConfig): ToolsConfig {
  const vars = readEnvironment(ToolsEnvironment, env);
  const oauth2 = readOAuth2Config(env, shared.encryption.currentKey);
  const mcpServers = readMcpServers(vars);
  if (mcpServers.errors.length > 0) {
    throw new ConfigError(`Invalid configuration: ${mcpServers.errors.join('; ')}`);
  }
  return {
    oauth2,
    mcp: { servers: mcpServers.servers, refreshMs: vars.MCP_REFRESH_MS },
    toolExecution: {
      timeoutMs: vars.TOOL_EXECUTION_TIMEOUT_MS,
      workerThreads: vars.TOOL_WORKER_THREADS,
    },
    toolkits: BUILTIN_TOOLKITS.map((toolkit) => toolkit.configure(env)),
  };
}
