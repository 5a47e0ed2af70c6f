import { createPublicKey, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { Transform } from 'class-transformer';
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
} from 'class-validator';
import { Env, EnvGroup, SERVICE_ENV_GROUP } from './env-declaration';
import { ConfigError, readEnvironment, toBoolean, toInteger, toList } from './environment';

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

/** Where the embedded database and the development secrets live unless DATA_DIR says. */
export const DEFAULT_DATA_DIR = './data';

/** The service's own variables (the rest belong to the modules that read them); validated at boot. */
@EnvGroup(SERVICE_ENV_GROUP)
export class EnvironmentVariables {
  @Env('HTTP port.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;
  @Env('Listen address.', {
    type: 'IP address or host name',
    default:
      '127.0.0.1 when running on generated development secrets, else every interface (the Docker image sets 0.0.0.0)',
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9.:-]+$/, { message: 'HOST must be an IP address or a host name' })
  HOST?: string;
  @Env(
    "Express `trust proxy`: which proxies' `X-Forwarded-For` gives the client address (rate limits per address, logs).",
    {
      type: 'true, false, a hop count, or comma-separated addresses, CIDR subnets, `loopback`, `linklocal`, `uniquelocal`',
      default: 'off: the client address is the TCP peer',
    },
  )
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;
  @Env('PostgreSQL URL; unset: the embedded database (PGlite) in `DATA_DIR`.', {
    example: 'postgres://agentline:agentline@localhost:5432/agentline',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  DATABASE_URL?: string;
  @Env(
    'PostgreSQL: how long a request (or a start-up attempt) waits for a connection before it answers `503 database_unavailable`.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  DATABASE_CONNECT_TIMEOUT_MS: number = 5_000;
  @Env(
    'PostgreSQL: how long start-up waits for the database to answer before it gives up (`0`: for ever).',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(86_400_000)
  DATABASE_STARTUP_TIMEOUT_MS: number = 60_000;
  @Env(
    'PostgreSQL: how often the one `LISTEN` connection (MCP tool-change notifications across replicas) is asked `SELECT 1`; no answer within it and it is opened again (a NAT may drop it without a word; [docs/mcp.md](docs/mcp.md#change-notifications)).',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  DATABASE_LISTEN_CHECK_MS: number = 30_000;
  @Env('Where the embedded database and the generated development secrets live.')
  @IsOptional()
  @IsString()
  @MinLength(1)
  DATA_DIR: string = DEFAULT_DATA_DIR;
  @Env(
    'HS256 secret that signs the API tokens (`openssl rand -base64 48` makes one); or set `JWT_PUBLIC_KEY` or `JWT_JWKS_URL` instead. Required with `DATABASE_URL`.',
    {
      secret: true,
      default: 'generated into DATA_DIR when no key is set and DATABASE_URL is unset',
    },
  )
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 characters' })
  JWT_SECRET?: string;
  @Env('PEM public key for RS256/ES256 tokens (`\\n` escapes allowed).')
  @IsOptional()
  @IsString()
  JWT_PUBLIC_KEY?: string;
  @Env('JWKS endpoint of your identity provider (keys cached 10 min).', {
    example: 'https://id.example.com/.well-known/jwks.json',
  })
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  JWT_JWKS_URL?: string;
  @Env('Token algorithms accepted; must fit the key kind.', {
    default: 'HS256 for a secret, RS256,ES256 for keys',
  })
  @IsOptional()
  @Transform(toList)
  @IsIn(JWT_ALGORITHMS, { each: true })
  JWT_ALGORITHMS?: JwtAlgorithm[];
  @Env('Required `iss` of the tokens, when set.')
  @IsOptional()
  @IsString()
  JWT_ISSUER?: string;
  @Env('Required `aud` of the tokens, when set.')
  @IsOptional()
  @IsString()
  JWT_AUDIENCE?: string;
  @Env("The token claim that names the caller's organization.")
  @IsOptional()
  @IsString()
  @MinLength(1)
  JWT_ORGANIZATION_CLAIM: string = 'organization_id';
  @Env('Tolerance for `exp` / `nbf` / `iat`, in seconds.')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(300)
  JWT_CLOCK_SKEW_SECONDS: number = 30;
  @Env('Refuse tokens without `exp` (`false` accepts tokens that never expire).')
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  JWT_REQUIRE_EXP: boolean = true;
  @Env(
    'Failed authentications per client address and minute, per process; past it the address\'s failing requests answer `429` with `Retry-After` until that minute is over, while valid tokens still get through; each `401` and that `429` carry `RateLimit-Policy: "auth-failures";q=300;w=60` and `RateLimit` (`0`: off).',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  AUTH_FAILURE_LIMIT_PER_MINUTE: number = 300;
  @Env(
    'Base64 of 32 bytes that encrypts secrets at rest (`openssl rand -base64 32` makes one). Required with `DATABASE_URL`.',
    { secret: true, default: 'generated into DATA_DIR in embedded mode' },
  )
  @IsOptional()
  @IsString()
  ENCRYPTION_KEY?: string;
  @Env('Older encryption keys, still accepted for decryption (key rotation).', { secret: true })
  @IsOptional()
  @Transform(toList)
  @IsString({ each: true })
  ENCRYPTION_PREVIOUS_KEYS: string[] = [];
  @Env(
    "External base URL: the OAuth2 redirect URI is `{PUBLIC_URL}/v1/oauth2/callback`, a channel's `webhook_url` is `{PUBLIC_URL}/v1/webhooks/{kind}/{id}`.",
    { default: 'http://localhost:$PORT', example: 'https://agentline.example.com' },
  )
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_URL?: string;
  @Env(
    "Browser origins whose pages may call the API with a token (comma-separated origins, `https://app.example.com`): they get CORS answers, and pass the MCP endpoint's Origin check. `*` is refused.",
    { example: 'https://app.example.com' },
  )
  @IsOptional()
  @Transform(toList)
  @IsString({ each: true })
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      each: true,
      message:
        'CORS_ORIGINS must list origins such as https://app.example.com (comma-separated); `*` is not accepted: name each origin that may call the API with a token',
    },
  )
  CORS_ORIGINS: string[] = [];
  @Env('pino log level.')
  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';
  @Env(
    'Write logs to this file instead of standard output (appended to; created `0600` whatever the umask, an existing file narrowed to `0600`: its lines hold organization ids and phone numbers).',
  )
  @IsOptional()
  @IsString()
  LOG_FILE?: string;
  @Env('`json` (one JSON object per line) or `pretty` (for people).', {
    default: '`pretty` when standard output is a terminal, `json` otherwise',
  })
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';
  @Env(
    'API requests per organization and minute across all routes (public routes: per client address), counted per process (with N replicas, N times as much: why, in [docs/decisions.md](docs/decisions.md#rate-limit)); answers say where the caller stands in the IETF draft\'s structured fields, `RateLimit-Policy: "organization";q=1200;w=60` (`"client-address"` on public routes) and `RateLimit: "organization";r=1199;t=60` (left, seconds until the window ends), and past the limit `429` with `Retry-After`; `0`: off.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE: number = 1200;
  // Slow or stalled clients: how long the server waits for headers, for a whole request, and on an
  // idle keep-alive connection.
  @Env(
    'Longest time to receive a whole request (headers and body); past it `408` problem+json and the connection closes.',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  HTTP_REQUEST_TIMEOUT_MS: number = 30_000;
  @Env("Longest time to receive a request's headers (at most `HTTP_REQUEST_TIMEOUT_MS`).")
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  HTTP_HEADERS_TIMEOUT_MS: number = 10_000;
  @Env(
    'How long an idle keep-alive connection stays open (behind a load balancer: above its idle time-out).',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 5_000;
  @Env(
    'On SIGTERM, how long the HTTP requests in flight may take to be answered; then every connection is closed. Connections with no request in flight close at once. The orchestrator must wait longer before it kills (see `SHUTDOWN_GRACE_MS`).',
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(600_000)
  HTTP_SHUTDOWN_TIMEOUT_MS: number = 10_000;
  @Env(
    "Days kept, then pruned by any replica: Meta's raw notifications once processed or set aside (`webhook_inbox`), and the attempt history of finished deliveries (`delivery_attempts`); never a notification not yet processed, nor an open delivery's attempts; deliveries, messages and follow-ups are not pruned. `0`: kept for ever.",
  )
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(3650)
  RETENTION_DAYS: number = 30;
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
  /**
   * PostgreSQL only: connection time-out, how long start-up waits for it (0: for ever), and how
   * often the LISTEN connection is checked.
   */
  database: { connectTimeoutMs: number; startupTimeoutMs: number; listenCheckMs: number };
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
  /**
   * `devKeyKeptFrom`: the development secrets file whose encryption key was added to the previous
   * keys, because ENCRYPTION_KEY replaced it on the embedded database (see devEncryptionKeyToKeep).
   */
  encryption: { currentKey: Buffer; previousKeys: Buffer[]; devKeyKeptFrom?: string };
  publicUrl: string;
  /** CORS_ORIGINS, each as `URL.origin` gives it (scheme, host and port; no path). */
  corsOrigins: string[];
  log: { level: string; file?: string; format?: 'json' | 'pretty' };
  rateLimitPerMinute: number;
  /** Failed authentications per client address and minute before 429; 0 = unlimited. */
  authFailureLimitPerMinute: number;
  /** Time-outs of the HTTP server for slow or stalled clients. */
  http: {
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    keepAliveTimeoutMs: number;
    /** At shutdown, how long the responses in flight may take before every connection is closed. */
    shutdownTimeoutMs: number;
  };
  /** RETENTION_DAYS: how long processed webhook bodies and attempt histories are kept; 0: for ever. */
  retentionDays: number;
}

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

/**
 * The encryption key of DATA_DIR's development secrets when ENCRYPTION_KEY now replaces it on the
 * embedded database: what was stored encrypted under it (access tokens, API keys, OAuth grants)
 * stays readable when it is kept as a previous key. Kept rather than refused: the start-up cannot
 * tell whether the database holds such data before it opens it, and decrypting with one key more
 * is as safe as ENCRYPTION_PREVIOUS_KEYS. A secrets file that others can read or change is not
 * trusted for it (undefined), as loadOrCreateDevSecrets refuses it.
 */
function devEncryptionKeyToKeep(dataDir: string, currentKey: Buffer): Buffer | undefined {
  const file = join(dataDir, DEV_SECRETS_FILE);
  if (!existsSync(file) || (statSync(file).mode & 0o077) !== 0) return undefined;
  let stored: unknown;
  try {
    stored = (JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>).encryption_key;
  } catch {
    return undefined;
  }
  if (typeof stored !== 'string') return undefined;
  const key = Buffer.from(stored, 'base64');
  return key.length === 32 && !key.equals(currentKey) ? key : undefined;
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

/** Origins only: a path, a query or a fragment would not be what the browser sends as `Origin`. */
function parseCorsOrigins(entries: string[]): string[] {
  const withMore = entries.filter((entry) => {
    const url = new URL(entry);
    return url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '';
  });
  if (withMore.length > 0) {
    throw new ConfigError(
      `Invalid configuration: CORS_ORIGINS takes origins (scheme://host[:port]), not ${withMore.join(', ')}`,
    );
  }
  return [...new Set(entries.map((entry) => new URL(entry).origin))];
}

function decodeKey(name: string, value: string): Buffer {
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== 32) {
    throw new ConfigError(`${name} must be the base64 encoding of exactly 32 bytes`);
  }
  return key;
}

/** Validates the environment and resolves it into the typed configuration; throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const vars = readEnvironment(EnvironmentVariables, env);
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
  const trustProxy = parseTrustProxy(vars.TRUST_PROXY);
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
    const publicKey = vars.JWT_PUBLIC_KEY.replace(/\\n/g, '\n');
    try {
      createPublicKey(publicKey);
    } catch {
      throw new ConfigError('Invalid configuration: JWT_PUBLIC_KEY: not a PEM public key');
    }
    verification = {
      kind: 'public-key',
      publicKey,
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

  const previousKeys = vars.ENCRYPTION_PREVIOUS_KEYS.map((key) =>
    decodeKey('ENCRYPTION_PREVIOUS_KEYS', key),
  );
  const devKey =
    embedded && vars.ENCRYPTION_KEY ? devEncryptionKeyToKeep(dataDir, currentKey) : undefined;
  const keptDevKey = devKey !== undefined && !previousKeys.some((key) => key.equals(devKey));
  if (keptDevKey) previousKeys.push(devKey);

  return {
    port: vars.PORT,
    // Generated secrets mean a developer's machine: nobody else on the network should reach it.
    host: vars.HOST ?? (devSecrets ? '127.0.0.1' : undefined),
    trustProxy,
    databaseUrl: vars.DATABASE_URL,
    database: {
      connectTimeoutMs: vars.DATABASE_CONNECT_TIMEOUT_MS,
      startupTimeoutMs: vars.DATABASE_STARTUP_TIMEOUT_MS,
      listenCheckMs: vars.DATABASE_LISTEN_CHECK_MS,
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
      previousKeys,
      devKeyKeptFrom: keptDevKey ? join(dataDir, DEV_SECRETS_FILE) : undefined,
    },
    publicUrl: (vars.PUBLIC_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, ''),
    corsOrigins: parseCorsOrigins(vars.CORS_ORIGINS),
    log: { level: vars.LOG_LEVEL, file: vars.LOG_FILE, format: vars.LOG_FORMAT },
    rateLimitPerMinute: vars.RATE_LIMIT_PER_MINUTE,
    authFailureLimitPerMinute: vars.AUTH_FAILURE_LIMIT_PER_MINUTE,
    http: {
      requestTimeoutMs: vars.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: vars.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: vars.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      shutdownTimeoutMs: vars.HTTP_SHUTDOWN_TIMEOUT_MS,
    },
    retentionDays: vars.RETENTION_DAYS,
  };
}
