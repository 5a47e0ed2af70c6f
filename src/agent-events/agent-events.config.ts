import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { Env, EnvGroup } from '../config/env-declaration';
import { ConfigError, readEnvironment, toInteger } from '../config/environment';

const DAY = 24 * 60 * 60 * 1000;

/** Where the agent's runtime hears about its channels, and the secret it checks signatures with. */
@EnvGroup('Agent events')
export class AgentEventsEnvironment {
  @Env(
    "The agent's endpoint for events ([docs/agent-events.md](docs/agent-events.md)); set with `AGENT_EVENTS_SECRET` or neither. Unset: no events, nothing stored.",
    { example: 'https://agent.example.com/agentline/events' },
  )
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AGENT_EVENTS_URL?: string;
  @Env(
    'Standard Webhooks signing secret: `whsec_` + base64, or any string of 24 characters or more (its UTF-8 bytes are the key).',
    { secret: true },
  )
  @IsOptional()
  @IsString()
  @MinLength(24)
  AGENT_EVENTS_SECRET?: string;
  @Env('Time-out of one POST to the agent.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  AGENT_EVENTS_TIMEOUT_MS: number = 10_000;
  @Env('How long an event is retried before it is given up (`failed_at`); 3 days by default.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(60_000)
  @Max(30 * DAY)
  AGENT_EVENTS_MAX_AGE_MS: number = 3 * DAY;
}

export interface AgentEventsConfig {
  /** Undefined: events are off, and nothing is stored. */
  target?: { url: string; secret: string };
  timeoutMs: number;
  maxAgeMs: number;
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
  if (secret?.startsWith('whsec_') && !/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(secret)) {
    throw new ConfigError(
      'Invalid configuration: AGENT_EVENTS_SECRET: a whsec_ secret must be base64 of 24 bytes or more',
    );
  }
  return {
    ...(url && secret ? { target: { url, secret } } : {}),
    timeoutMs: vars.AGENT_EVENTS_TIMEOUT_MS,
    maxAgeMs: vars.AGENT_EVENTS_MAX_AGE_MS,
  };
}
