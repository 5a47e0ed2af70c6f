import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';
import { readEnvironment, toInteger } from '../config/environment';

/** The variables the channels read: where Meta's Graph API is, and how long one send may take. */
export class ChannelsEnvironment {
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GRAPH_API_URL: string = 'https://graph.facebook.com/v23.0';
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  GRAPH_API_TIMEOUT_MS: number = 10_000;
}

export interface ChannelsConfig {
  /** GRAPH_API_URL without a trailing slash, version path included. */
  graphApiUrl: string;
  /** The longest one send can take (GRAPH_API_TIMEOUT_MS): callers size leases and grace on it. */
  sendTimeoutMs: number;
}

export const CHANNELS_CONFIG = Symbol('CHANNELS_CONFIG');

/** Throws ConfigError naming the bad variable. */
export function readChannelsConfig(env: NodeJS.ProcessEnv): ChannelsConfig {
  const vars = readEnvironment(ChannelsEnvironment, env);
  return {
    graphApiUrl: vars.GRAPH_API_URL.replace(/\/+$/, ''),
    sendTimeoutMs: vars.GRAPH_API_TIMEOUT_MS,
  };
}
