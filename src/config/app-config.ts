import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { plainToInstance, Transform } from 'class-transformer';
import ipaddr from 'ipaddr.js';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Matches,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { OAuth2Config, oauth2StateSecret, readOAuth2Providers } from './oauth2.config';
import { McpServerConfig, readMcpServers } from '../tools/mcp/mcp-server.config';

// A word that is neither stays a string and fails @IsBoolean: `JWT_REQUIRE_EXP=flase` must not
// quietly turn a check off.
const toBoolean = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(word)) return true;
  if (['0', 'false', 'no', 'off'].includes(word)) return false;
  return value;
};
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'PS256',
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** The environment, as documented in README and CONTRACT.md; validated once at boot. */
export class EnvironmentVariables {
  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) @Max(65535) PORT: number = 3000;
  /** The listen address; unset: 127.0.0.1 on generated development secrets, else every interface. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9.:-]+$/, { message: 'HOST must be an IP address or a host name' })
  HOST?: string;
  /** Express `trust proxy`: which proxies' X-Forwarded-For to believe for the client address. */
  @IsOptional() @IsString() TRUST_PROXY?: string;
  @IsOptional() @IsString() @MinLength(1) DATABASE_URL?: string;
  /** How long one connection attempt to PostgreSQL may take; requests fail fast past it. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  DATABASE_CONNECT_TIMEOUT_MS: number = 5_000;
  /** How long start-up waits for PostgreSQL to answer; 0 waits for ever. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  DATABASE_STARTUP_TIMEOUT_MS: number = 60_000;
  @IsOptional() @IsString() @MinLength(1) DATA_DIR: string = './data';
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 characters' })
  JWT_SECRET?: string;
  @IsOptional() @IsString() JWT_PUBLIC_KEY?: string;
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] }) JWT_JWKS_URL?: string;
  @IsOptional()
  @Transform(toList)
  @IsIn(JWT_ALGORITHMS, { each: true })
  JWT_ALGORITHMS?: JwtAlgorithm[];
  @IsOptional() @IsString() JWT_ISSUER?: string;
  @IsOptional() @IsString() JWT_AUDIENCE?: string;
  @IsOptional() @IsString() @MinLength(1) JWT_ORGANIZATION_CLAIM: string = 'organization_id';
  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) @Max(300) JWT_CLOCK_SKEW_SECONDS: number =
    30;
  @IsOptional() @Transform(toBoolean) @IsBoolean() JWT_REQUIRE_EXP: boolean = true;
  /** Failed authentications per client address and minute, per process; 0 turns the limit off. */
  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) AUTH_FAILURE_LIMIT_PER_MINUTE: number = 300;
  @IsOptional() @IsString() ENCRYPTION_KEY?: string;
  @IsOptional() @Transform(toList) @IsString({ each: true }) ENCRYPTION_PREVIOUS_KEYS: string[] =
    [];
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GRAPH_API_URL: string = 'https://graph.facebook.com/v23.0';
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  GRAPH_API_TIMEOUT_MS: number = 10_000;
  @IsOptional() @IsString() META_APP_SECRET?: string;
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] }) PUBLIC_URL?: string;
  @IsOptional() @Transform(toBoolean) @IsBoolean() SCHEDULER_ENABLED: boolean = true;
  @IsOptional() @Transform(toInteger) @IsInt() @Min(50) SCHEDULER_TICK_MS: number = 1000;
  @IsOptional() @Transform(toInteger) @IsInt() @Min(1) @Max(1000) DELIVERY_CONCURRENCY: number = 32;
  @IsOptional() @Transform(toInteger) @IsInt() @Min(1) @Max(100) DELIVERY_MAX_ATTEMPTS: number = 8;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  DELIVERY_LEASE_MS: number = 60_000;
  /** Messages per second per WhatsApp channel, across all replicas; 0 lifts the limit. */
  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) CHANNEL_RATE_LIMIT_PER_SECOND: number = 80;
  /** How often each scheduler process beats its heartbeat row, on the database's clock. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(60_000)
  DELIVERY_HEARTBEAT_MS: number = 2_000;
  /** A process whose last beat is older than this is dead: its claims are taken over. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(200)
  @Max(600_000)
  DELIVERY_HEARTBEAT_TIMEOUT_MS: number = 6_000;
  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) @Max(600_000) SHUTDOWN_GRACE_MS: number =
    15_000;
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] }) AGENT_LLM_URL?: string;
  @IsOptional() @IsString() @MinLength(1) AGENT_LLM_MODEL: string = 'gpt-4o-mini';
  @IsOptional() @IsString() AGENT_LLM_API_KEY?: string;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(300_000)
  AGENT_LLM_TIMEOUT_MS: number = 15_000;
  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';
  /** API requests per organization and minute, per process; 0 turns the limit off. */
  @IsOptional() @Transform(toInteger) @IsInt() @Min(0) RATE_LIMIT_PER_MINUTE: number = 1200;
  /** Write logs to this file instead of standard output (tests read it back). */
  @IsOptional() @IsString() LOG_FILE?: string;
  // OAuth2 providers themselves are OAUTH_<ID>_* variables, read by readOAuth2Providers.
  // Absolute URLs: the callback redirects browsers there.
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OAUTH_SUCCESS_URL?: string;
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OAUTH_FAILURE_URL?: string;
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'OAUTH_STATE_SECRET must be at least 32 characters' })
  OAUTH_STATE_SECRET?: string;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  OAUTH_HTTP_TIMEOUT_MS: number = 10_000;
  /** MCP servers, a JSON array (docs/toolkits.md); or MCP_SERVERS_FILE, a file holding one. */
  @IsOptional() @IsString() MCP_SERVERS?: string;
  @IsOptional() @IsString() MCP_SERVERS_FILE?: string;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  MCP_REFRESH_MS: number = 300_000;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  TOOL_EXECUTION_TIMEOUT_MS: number = 30_000;
  /** Worker threads that run the CPU-bound built-in tools; default: the cores less one, 1 to 4. */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(64)
  TOOL_WORKER_THREADS: number = Math.max(1, Math.min(4, availableParallelism() - 1));
  // Base URLs of the providers the built-in toolkits call; tests point them at fakes.
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  OPENWEATHER_API_URL: string = 'https://api.openweathermap.org';
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  SERPAPI_API_URL: string = 'https://serpapi.com';
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GOOGLE_API_URL: string = 'https://www.googleapis.com';
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GITHUB_API_URL: string = 'https://api.github.com';
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  SLACK_API_URL: string = 'https://slack.com/api';
  // Slow or stalled clients: how long the server waits for headers, for a whole request, and on an
  // idle keep-alive connection (see README "Configuration").
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  HTTP_REQUEST_TIMEOUT_MS: number = 30_000;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  HTTP_HEADERS_TIMEOUT_MS: number = 10_000;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 5_000;
}

export type JwtVerification =
  | { kind: 'secret'; secret: string; algorithms: JwtAlgorithm[] }
  | { kind: 'public-key'; publicKey: string; algorithms: JwtAlgorithm[] }
  | { kind: 'jwks'; jwksUrl: string; algorithms: JwtAlgorithm[] };

/** Express's `trust proxy` values: off/on, a number of hops, or addresses, subnets and names. */
export type TrustProxy = boolean | number | string[];

export interface AppConfig {
  port: number;
  /** Where the server listens; undefined: every interface (Node's default). */
  host?: string;
  trustProxy: TrustProxy;
  databaseUrl?: string;
  /** PostgreSQL only: connection time-out, and how long start-up waits for it (0: for ever). */
  database: { connectTimeoutMs: number; startupTimeoutMs: number };
  dataDir: string;
  jwt: JwtVerification & {
    issuer?: string;
    audience?: string;
    organizationClaim: string;
    clockSkewSeconds: number;
    /** Refuse tokens without `exp`. */
    requireExpiration: boolean;
    /** True when the secret was generated into DATA_DIR for local use. */
    generated: boolean;
  };
  /** True when any secret (JWT or encryption key) came from DATA_DIR's generated dev secrets. */
  devSecrets: boolean;
  encryption: { currentKey: Buffer; previousKeys: Buffer[] };
  graphApi: { url: string; timeoutMs: number };
  metaAppSecret?: string;
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
  shutdownGraceMs: number;
  publicUrl: string;
  scheduler: { enabled: boolean; tickMs: number };
  log: { level: string; file?: string };
  rateLimitPerMinute: number;
  /** Failed authentications per client address and minute before 429; 0 = unlimited. */
  authFailureLimitPerMinute: number;
  oauth2: OAuth2Config;
  /** MCP servers whose tools join the catalog, and how often their tool lists are re-read. */
  mcp: { servers: McpServerConfig[]; refreshMs: number };
  /** Default time-out of one tool call. */
  toolExecution: { timeoutMs: number; workerThreads: number };
  /** Time-outs of the HTTP server for slow or stalled clients. */
  http: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number };
  /** Base URLs (no trailing slash) of the providers behind the built-in toolkits. */
  toolProviders: {
    openWeatherUrl: string;
    serpApiUrl: string;
    googleUrl: string;
    githubUrl: string;
    slackUrl: string;
  };
}

export class ConfigError extends Error {}

/** On SIGTERM, the time left after the last call's time-out to write its outcome. */
export const SHUTDOWN_RECORD_MARGIN_MS = 1_000;

const DEV_SECRETS_FILE = 'dev-secrets.json';

interface DevSecrets {
  jwt_secret: string;
  encryption_key: string;
}

/**
 * Secrets for local use, generated once into DATA_DIR so that restarts keep tokens and data
 * readable. A secrets file that other users can read or change is refused, never used: whoever can
 * read it can mint tokens for any organization and decrypt every stored secret.
 */
export function loadOrCreateDevSecrets(dataDir: string): DevSecrets {
  const file = join(dataDir, DEV_SECRETS_FILE);
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new ConfigError(
        `${file} is readable or writable by other users (mode ${mode.toString(8)}): run \`chmod 600 ${file}\` and start again`,
      );
    }
    return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
  }
  // 0700 whatever the umask: the directory holds the secrets and the embedded database.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets: DevSecrets = {
    jwt_secret: randomBytes(48).toString('base64url'),
    encryption_key: randomBytes(32).toString('base64'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secrets;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY as Express takes it: `true`/`false`, a hop count, or addresses, subnets and names. */
function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined) return false;
  if (/^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  if (/^\d+$/.test(value.trim())) return Number(value);
  const entries = toList({ value }) as string[];
  const invalid = entries.filter(
    (entry) => !PROXY_NAMES.includes(entry) && isIP(entry) === 0 && !ipaddr.isValidCIDR(entry),
  );
  if (entries.length === 0 || invalid.length > 0) {
    throw new ConfigError(
      `Invalid configuration: TRUST_PROXY must be true, false, a number of hops, or a comma-separated list of addresses, subnets (CIDR) and ${PROXY_NAMES.join('/')}; not ${invalid.join(', ') || 'empty'}`,
    );
  }
  return entries;
}

function decodeKey(name: string, value: string): Buffer {
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== 32) {
    throw new ConfigError(`${name} must be the base64 encoding of exactly 32 bytes`);
  }
  return key;
}

function describe(errors: ReturnType<typeof validateSync>): string {
  return errors
    .map((error) => `${error.property}: ${Object.values(error.constraints ?? {}).join(', ')}`)
    .join('; ');
}

/** Validates the environment and resolves it into the typed configuration; throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const vars = plainToInstance(EnvironmentVariables, present);
  const errors = validateSync(vars, { skipMissingProperties: false });
  if (errors.length > 0) {
    throw new ConfigError(`Invalid configuration: ${describe(errors)}`);
  }
  const oauth2Providers = readOAuth2Providers(present);
  if (oauth2Providers.errors.length > 0) {
    throw new ConfigError(`Invalid configuration: ${oauth2Providers.errors.join('; ')}`);
  }
  const mcpServers = readMcpServers(vars);
  if (mcpServers.errors.length > 0) {
    throw new ConfigError(`Invalid configuration: ${mcpServers.errors.join('; ')}`);
  }
  const dataDir = resolve(vars.DATA_DIR);
  const embedded = !vars.DATABASE_URL;
  const keySources = [vars.JWT_SECRET, vars.JWT_PUBLIC_KEY, vars.JWT_JWKS_URL].filter(Boolean);
  if (keySources.length > 1) {
    throw new ConfigError('Set only one of JWT_SECRET, JWT_PUBLIC_KEY and JWT_JWKS_URL');
  }
  if (!embedded && keySources.length === 0) {
    throw new ConfigError(
      'DATABASE_URL is set but no token key is: set JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL',
    );
  }
  if (!embedded && !vars.ENCRYPTION_KEY) {
    throw new ConfigError(
      'DATABASE_URL is set but ENCRYPTION_KEY is not: set it to the base64 of 32 random bytes (openssl rand -base64 32)',
    );
  }
  const sendBudgetMs =
    vars.GRAPH_API_TIMEOUT_MS + (vars.AGENT_LLM_URL ? vars.AGENT_LLM_TIMEOUT_MS : 0) + 2_000;
  if (vars.DELIVERY_LEASE_MS < sendBudgetMs) {
    // A lease that can run out during one send lets another process send the same message.
    throw new ConfigError(
      `DELIVERY_LEASE_MS (${vars.DELIVERY_LEASE_MS}) must be at least ${sendBudgetMs}: the Graph API time-out` +
        `${vars.AGENT_LLM_URL ? ' plus the LLM time-out' : ''} plus 2 s`,
    );
  }
  const trustProxy = parseTrustProxy(vars.TRUST_PROXY);
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
  const shutdownBudgetMs = vars.GRAPH_API_TIMEOUT_MS + SHUTDOWN_RECORD_MARGIN_MS;
  if (vars.SCHEDULER_ENABLED && vars.SHUTDOWN_GRACE_MS < shutdownBudgetMs) {
    // On SIGTERM every call in flight is waited for and its outcome recorded (docs/scheduler.md):
    // a grace period shorter than a call would cut calls whose outcome is then unknown.
    throw new ConfigError(
      `SHUTDOWN_GRACE_MS (${vars.SHUTDOWN_GRACE_MS}) must be at least ${shutdownBudgetMs}: GRAPH_API_TIMEOUT_MS (${vars.GRAPH_API_TIMEOUT_MS}) plus ${SHUTDOWN_RECORD_MARGIN_MS} ms to record the outcomes`,
    );
  }
  if (vars.HTTP_HEADERS_TIMEOUT_MS > vars.HTTP_REQUEST_TIMEOUT_MS) {
    // Node refuses a headers time-out longer than the request time-out that contains it.
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT_MS (${vars.HTTP_HEADERS_TIMEOUT_MS}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${vars.HTTP_REQUEST_TIMEOUT_MS})`,
    );
  }
  const devSecrets =
    embedded && (keySources.length === 0 || !vars.ENCRYPTION_KEY)
      ? loadOrCreateDevSecrets(dataDir)
      : undefined;

  let verification: JwtVerification;
  if (vars.JWT_PUBLIC_KEY) {
    verification = {
      kind: 'public-key',
      publicKey: vars.JWT_PUBLIC_KEY.replace(/\\n/g, '\n'),
      algorithms: vars.JWT_ALGORITHMS ?? ['RS256', 'ES256'],
    };
  } else if (vars.JWT_JWKS_URL) {
    verification = {
      kind: 'jwks',
      jwksUrl: vars.JWT_JWKS_URL,
      algorithms: vars.JWT_ALGORITHMS ?? ['RS256', 'ES256'],
    };
  } else {
    verification = {
      kind: 'secret',
      secret: vars.JWT_SECRET ?? (devSecrets as DevSecrets).jwt_secret,
      algorithms: vars.JWT_ALGORITHMS ?? ['HS256'],
    };
  }
  const symmetric = verification.algorithms.some((alg) => alg.startsWith('HS'));
  const asymmetric = verification.algorithms.some((alg) => !alg.startsWith('HS'));
  if (
    (verification.kind === 'secret' && asymmetric) ||
    (verification.kind !== 'secret' && symmetric)
  ) {
    // Mixing key kinds is how algorithm-confusion attacks start: an HS256 token "signed" with a public key.
    throw new ConfigError(
      `JWT_ALGORITHMS ${verification.algorithms.join(',')} do not fit the configured ${verification.kind}`,
    );
  }

  const currentKey = decodeKey(
    'ENCRYPTION_KEY',
    vars.ENCRYPTION_KEY ?? (devSecrets as DevSecrets).encryption_key,
  );

  return {
    port: vars.PORT,
    // Generated secrets mean a developer's machine: nobody else on the network should reach it.
    host: vars.HOST ?? (devSecrets ? '127.0.0.1' : undefined),
    trustProxy,
    databaseUrl: vars.DATABASE_URL,
    database: {
      connectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT_MS,
      startupTimeoutMs: vars.DATABASE_STARTUP_TIMEOUT_MS,
    },
    dataDir,
    jwt: {
      ...verification,
      issuer: vars.JWT_ISSUER,
      audience: vars.JWT_AUDIENCE,
      organizationClaim: vars.JWT_ORGANIZATION_CLAIM,
      clockSkewSeconds: vars.JWT_CLOCK_SKEW_SECONDS,
      requireExpiration: vars.JWT_REQUIRE_EXP,
      generated: verification.kind === 'secret' && !vars.JWT_SECRET,
    },
    devSecrets: devSecrets !== undefined,
    encryption: {
      currentKey,
      previousKeys: vars.ENCRYPTION_PREVIOUS_KEYS.map((key) =>
        decodeKey('ENCRYPTION_PREVIOUS_KEYS', key),
      ),
    },
    graphApi: { url: vars.GRAPH_API_URL.replace(/\/+$/, ''), timeoutMs: vars.GRAPH_API_TIMEOUT_MS },
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
    metaAppSecret: vars.META_APP_SECRET,
    publicUrl: (vars.PUBLIC_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, ''),
    scheduler: { enabled: vars.SCHEDULER_ENABLED, tickMs: vars.SCHEDULER_TICK_MS },
    log: { level: vars.LOG_LEVEL, file: vars.LOG_FILE },
    rateLimitPerMinute: vars.RATE_LIMIT_PER_MINUTE,
    authFailureLimitPerMinute: vars.AUTH_FAILURE_LIMIT_PER_MINUTE,
    oauth2: {
      providers: oauth2Providers.providers,
      successUrl: vars.OAUTH_SUCCESS_URL,
      failureUrl: vars.OAUTH_FAILURE_URL,
      stateSecret: oauth2StateSecret(vars.OAUTH_STATE_SECRET, currentKey),
      httpTimeoutMs: vars.OAUTH_HTTP_TIMEOUT_MS,
    },
    mcp: { servers: mcpServers.servers, refreshMs: vars.MCP_REFRESH_MS },
    toolExecution: {
      timeoutMs: vars.TOOL_EXECUTION_TIMEOUT_MS,
      workerThreads: vars.TOOL_WORKER_THREADS,
    },
    http: {
      requestTimeoutMs: vars.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: vars.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: vars.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    toolProviders: {
      openWeatherUrl: vars.OPENWEATHER_API_URL.replace(/\/+$/, ''),
      serpApiUrl: vars.SERPAPI_API_URL.replace(/\/+$/, ''),
      googleUrl: vars.GOOGLE_API_URL.replace(/\/+$/, ''),
      githubUrl: vars.GITHUB_API_URL.replace(/\/+$/, ''),
      slackUrl: vars.SLACK_API_URL.replace(/\/+$/, ''),
    },
  };
}
