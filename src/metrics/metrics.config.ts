import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { Env, EnvGroup } from '../config/env-declaration';
import { readEnvironment, toInteger } from '../config/environment';

@EnvGroup('Metrics')
export class MetricsEnvironment {
  @Env(
    'When set, `GET /metrics` needs `Authorization: Bearer <METRICS_TOKEN>` (`openssl rand -hex 24` makes one). **Unset, and without `METRICS_PORT`, `/metrics` is open to anyone who reaches the API port**: it holds no organization id, phone number or secret (routes are templates), but it shows traffic, outbox depth and failures, so set one of the two in production. A scrape never queries the database.',
    { secret: true, default: 'unset (open)' },
  )
  @IsOptional()
  @IsString()
  @MinLength(16)
  METRICS_TOKEN?: string;
  @Env('When set, metrics are served on this port (same `HOST`) and not on the API port.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(65_535)
  METRICS_PORT?: number;
  @Env(
    'How often each process reads the gauges that come from the database (outbox, agent events); a scrape serves the last values read, kept through a database outage (`agentline_database_up` is then `0`).',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  METRICS_REFRESH_MS: number = 15_000;
}

export interface MetricsConfig {
  token?: string;
  port?: number;
  refreshMs: number;
}

export const METRICS_CONFIG = Symbol('METRICS_CONFIG');

export function readMetricsConfig(env: NodeJS.ProcessEnv): MetricsConfig {
  const vars = readEnvironment(MetricsEnvironment, env);
  return { token: vars.METRICS_TOKEN, port: vars.METRICS_PORT, refreshMs: vars.METRICS_REFRESH_MS };
}
