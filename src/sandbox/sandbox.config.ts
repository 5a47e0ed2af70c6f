import { randomBytes } from 'node:crypto';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import {
  ConfigError,
  presentVariables,
  readEnvironment,
  toBoolean,
  toInteger,
} from '../config/environment';

/** The sandbox's variables (docs/sandbox.md). */
export class SandboxEnvironment {
  /** Channels talk to the built-in stand-in for Meta instead of Meta; for trying agentline only. */
  @IsOptional() @Transform(toBoolean) @IsBoolean() META_SANDBOX: boolean = false;
  /** The pause before each status notification of a send (`sent`, then `delivered`, then `read`). */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(60_000)
  SANDBOX_STATUS_DELAY_MS: number = 1_500;
}

export interface SandboxConfig {
  enabled: boolean;
  statusDelayMs: number;
  /**
   * With the sandbox on and no META_APP_SECRET, the secret its notifications are signed with:
   * generated once per process, so that every reading of the configuration agrees. Never logged.
   */
  generatedAppSecret?: string;
}

export const SANDBOX_CONFIG = Symbol('SANDBOX_CONFIG');

let generatedSecret: string | undefined;

/** Throws ConfigError naming the bad variable, or the sandbox asked for beside a real Graph API. */
export function readSandboxConfig(env: NodeJS.ProcessEnv): SandboxConfig {
  const vars = readEnvironment(SandboxEnvironment, env);
  if (!vars.META_SANDBOX) return { enabled: false, statusDelayMs: vars.SANDBOX_STATUS_DELAY_MS };
  const present = presentVariables(env);
  if (present.GRAPH_API_URL !== undefined) {
    throw new ConfigError(
      'META_SANDBOX=true and GRAPH_API_URL are both set: the sandbox stands in for the Graph API, so unset GRAPH_API_URL (or META_SANDBOX to talk to Meta)',
    );
  }
  return {
    enabled: true,
    statusDelayMs: vars.SANDBOX_STATUS_DELAY_MS,
    ...(present.META_APP_SECRET === undefined && {
      generatedAppSecret: (generatedSecret ??= randomBytes(32).toString('base64url')),
    }),
  };
}
