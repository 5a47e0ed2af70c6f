import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  MinLength,
} from 'class-validator';
import { ChannelsConfig } from '../channels';
import { Env, EnvGroup } from '../config/env-declaration';
import { ConfigError, readEnvironment, toBoolean, toInteger } from '../config/environment';

/** The scheduler's variables: when it ticks, how deliveries are sent, and who writes them. */
@EnvGroup('Scheduler and delivery')
export class SchedulerEnvironment {
  @Env('Run dispatch and delivery in this process.')
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  SCHEDULER_ENABLED: boolean = true;
  @Env('How often the scheduler looks for due work.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(50)
  SCHEDULER_TICK_MS: number = 1000;
  @Env('Sends in flight per process.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1000)
  DELIVERY_CONCURRENCY: number = 32;
  @Env('Attempts before a transient failure becomes `failed`.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(100)
  DELIVERY_MAX_ATTEMPTS: number = 8;
  @Env(
    'How long a claimed delivery stays with its process without a heartbeat extending it (a stalled send); at least the Graph time-out, plus the LLM time-out, plus 2 s, and at least `DELIVERY_HEARTBEAT_TIMEOUT_MS` plus `DELIVERY_HEARTBEAT_MS`.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  DELIVERY_LEASE_MS: number = 60_000;
  @Env('Messages per second per WhatsApp channel, across replicas (`0`: no limit).')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  CHANNEL_RATE_LIMIT_PER_SECOND: number = 80;
  @Env(
    "How often each scheduler process beats its heartbeat row (and extends the leases of what it holds), on the database's clock.",
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(60_000)
  DELIVERY_HEARTBEAT_MS: number = 2_000;
  @Env(
    'A process whose last beat is older than this is dead and its claims are taken over ([docs/scheduler.md](docs/scheduler.md)); at least twice `DELIVERY_HEARTBEAT_MS`.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(200)
  @Max(600_000)
  DELIVERY_HEARTBEAT_TIMEOUT_MS: number = 6_000;
  @Env(
    'On SIGTERM, how long the calls in flight may take to finish and be recorded before the process exits; with the scheduler on, at least `GRAPH_API_TIMEOUT_MS` plus 1 s (checked at start-up). The orchestrator must wait longer before it kills: `docker-compose.yml` sets `stop_grace_period: 20s`; on Kubernetes set `terminationGracePeriodSeconds` above it.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_GRACE_MS: number = 15_000;
  @Env(
    'An OpenAI-compatible endpoint (base URL) that writes each follow-up message; unset: the prompt is the message.',
    { example: 'https://api.openai.com/v1' },
  )
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AGENT_LLM_URL?: string;
  @Env('The model `AGENT_LLM_URL` is asked for.')
  @IsOptional()
  @IsString()
  @MinLength(1)
  AGENT_LLM_MODEL: string = 'gpt-4o-mini';
  @Env('Bearer key of `AGENT_LLM_URL`.', { secret: true })
  @IsOptional()
  @IsString()
  AGENT_LLM_API_KEY?: string;
  @Env('Time-out of one call to `AGENT_LLM_URL`.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(300_000)
  AGENT_LLM_TIMEOUT_MS: number = 15_000;
}

export interface SchedulerConfig {
  enabled: boolean;
  tickMs: number;
  delivery: {
    concurrency: number;
    maxAttempts: number;
    leaseMs: number;
    /** 0 = unlimited. */
    channelRateLimitPerSecond: number;
    heartbeatMs: number;
    heartbeatTimeoutMs: number;
  };
  /** An OpenAI-compatible chat-completions endpoint that writes follow-up messages; unset = templates. */
  llm?: { url: string; model: string; apiKey?: string; timeoutMs: number };
  /** On SIGTERM, how long the calls in flight may take to finish and be recorded. */
  shutdownGraceMs: number;
}

export const SCHEDULER_CONFIG = Symbol('SCHEDULER_CONFIG');

/** On SIGTERM, the time left after the last call's time-out to write its outcome. */
export const SHUTDOWN_RECORD_MARGIN_MS = 1_000;

/**
 * Throws ConfigError naming the bad variable. Leases and the grace period are checked against the
 * channels' send time-out: a lease or a grace period shorter than a send cuts it.
 */
export function readSchedulerConfig(
  env: NodeJS.ProcessEnv,
  channels: ChannelsConfig,
): SchedulerConfig {
  const vars = readEnvironment(SchedulerEnvironment, env);
  const sendBudgetMs =
    channels.sendTimeoutMs + (vars.AGENT_LLM_URL ? vars.AGENT_LLM_TIMEOUT_MS : 0) + 2_000;
  if (vars.DELIVERY_LEASE_MS < sendBudgetMs) {
    // A lease that can run out during one send lets another process send the same message.
    throw new ConfigError(
      `DELIVERY_LEASE_MS (${vars.DELIVERY_LEASE_MS}) must be at least ${sendBudgetMs}: the Graph API time-out` +
        `${vars.AGENT_LLM_URL ? ' plus the LLM time-out' : ''} plus 2 s`,
    );
  }
  if (vars.DELIVERY_HEARTBEAT_TIMEOUT_MS < 2 * vars.DELIVERY_HEARTBEAT_MS) {
    // One late beat must not make a live process look dead.
    throw new ConfigError(
      `DELIVERY_HEARTBEAT_TIMEOUT_MS (${vars.DELIVERY_HEARTBEAT_TIMEOUT_MS}) must be at least twice DELIVERY_HEARTBEAT_MS (${vars.DELIVERY_HEARTBEAT_MS})`,
    );
  }
  const heartbeatSpanMs = vars.DELIVERY_HEARTBEAT_TIMEOUT_MS + vars.DELIVERY_HEARTBEAT_MS;
  if (vars.DELIVERY_LEASE_MS < heartbeatSpanMs) {
    // Every beat extends the leases of the rows the process holds: a lease must outlast a database
    // outage too short to make anyone look dead, plus the beat that extends it afterwards.
    throw new ConfigError(
      `DELIVERY_LEASE_MS (${vars.DELIVERY_LEASE_MS}) must be at least ${heartbeatSpanMs}: DELIVERY_HEARTBEAT_TIMEOUT_MS plus DELIVERY_HEARTBEAT_MS`,
    );
  }
  const shutdownBudgetMs = channels.sendTimeoutMs + SHUTDOWN_RECORD_MARGIN_MS;
  if (vars.SCHEDULER_ENABLED && vars.SHUTDOWN_GRACE_MS < shutdownBudgetMs) {
    // On SIGTERM every call in flight is waited for and its outcome recorded (docs/scheduler.md):
    // a grace period shorter than a call would cut calls whose outcome is then unknown.
    throw new ConfigError(
      `SHUTDOWN_GRACE_MS (${vars.SHUTDOWN_GRACE_MS}) must be at least ${shutdownBudgetMs}: GRAPH_API_TIMEOUT_MS (${channels.sendTimeoutMs}) plus ${SHUTDOWN_RECORD_MARGIN_MS} ms to record the outcomes`,
    );
  }
  return {
    enabled: vars.SCHEDULER_ENABLED,
    tickMs: vars.SCHEDULER_TICK_MS,
    delivery: {
      concurrency: vars.DELIVERY_CONCURRENCY,
      maxAttempts: vars.DELIVERY_MAX_ATTEMPTS,
      leaseMs: vars.DELIVERY_LEASE_MS,
      channelRateLimitPerSecond: vars.CHANNEL_RATE_LIMIT_PER_SECOND,
      heartbeatMs: vars.DELIVERY_HEARTBEAT_MS,
      heartbeatTimeoutMs: vars.DELIVERY_HEARTBEAT_TIMEOUT_MS,
    },
    llm: vars.AGENT_LLM_URL
      ? {
          url: vars.AGENT_LLM_URL.replace(/\/+$/, ''),
          model: vars.AGENT_LLM_MODEL,
          apiKey: vars.AGENT_LLM_API_KEY,
          timeoutMs: vars.AGENT_LLM_TIMEOUT_MS,
        }
      : undefined,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
  };
}
