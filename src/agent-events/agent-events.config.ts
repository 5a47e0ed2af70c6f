import { IsOptional, IsString, IsUrl, MinLength } from 'class-validator';
import { ConfigError, readEnvironment } from '../config/environment';

/** Where the agent's runtime hears about its channels, and the secret it checks signatures with. */
export class AgentEventsEnvironment {
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AGENT_EVENTS_URL?: string;
  /** A Standard Webhooks secret (`whsec_` + base64), or any string of 24 characters or more. */
  @IsOptional() @IsString() @MinLength(24) AGENT_EVENTS_SECRET?: string;
}

export interface AgentEventsConfig {
  /** Undefined: events are off, and nothing is stored. */
  target?: { url: string; secret: string };
}

export const AGENT_EVENTS_CONFIG = Symbol('AGENT_EVENTS_CONFIG');

/** Throws ConfigError naming the bad variable; the URL and the secret come together or not at all. */
export function readAgentEventsConfig(env: NodeJS.ProcessEnv): AgentEventsConfig {
  const vars = readEnvironment(AgentEventsEnvironment, env);
  const { AGENT_EVENTS_URL: url, AGENT_EVENTS_SECRET: secret } = vars;
  if (url && !secret) {
    throw new ConfigError(
      'Invalid configuration: AGENT_EVENTS_SECRET: must be set with AGENT_EVENTS_URL',
    );
  }
  if (secret && !url) {
    throw new ConfigError(
      'Invalid configuration: AGENT_EVENTS_URL: must be set with AGENT_EVENTS_SECRET',
    );
  }
  return url && secret ? { target: { url, secret } } : {};
}
