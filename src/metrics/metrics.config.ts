import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { readEnvironment, toInteger } from '../config/environment';

export class MetricsEnvironment {
  /** When set, `GET /metrics` on the API port needs `Authorization: Bearer <METRICS_TOKEN>`. */
  @IsOptional() @IsString() @MinLength(16) METRICS_TOKEN?: string;
  /** When set, metrics are served on this port (same HOST) instead of the API port. */
  @IsOptional() @Transform(toInteger) @IsInt() @Min(1) @Max(65_535) METRICS_PORT?: number;
  /** How often each process reads the database gauges; a scrape serves the last values read. */
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
