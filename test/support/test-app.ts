import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { INestApplication, Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { configureApp } from '../../src/app.setup';
import { Clock } from '../../src/common/clock';
import { AppConfig } from '../../src/config/app-config';
import { APP_CONFIG } from '../../src/config/config.module';
import { readToolsConfig, TOOLS_CONFIG, ToolsConfig } from '../../src/tools/tools.config';
import {
  adminQuery,
  copyEmbeddedTemplate,
  databaseUrl,
  postgresTemplateClause,
} from './template-database';
import { closeApp } from './closing';
import { TOOLKITS_TESTING } from './toolkits';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

export type Env = Record<string, string | undefined>;

export interface TestApp {
  app: INestApplication;
  http: () => ReturnType<typeof request>;
  dataDir: string;
  logFile: string;
  /** Everything the service logged so far. */
  logs: () => string;
  close: () => Promise<void>;
}

/** The variables every test app gets. */
export function baseEnv(): Env {
  return {
    JWT_SECRET: TEST_JWT_SECRET,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    SCHEDULER_ENABLED: 'false',
    // The periodic template catalog sync runs only in the tests that ask for it.
    TEMPLATE_SYNC_MS: '0',
    LOG_LEVEL: 'info',
  };
}

/**
 * Every variable agentline reads (see src/config/app-config.ts, and each built-in toolkit's
 * prefix from its folder); cleared before each boot.
 */
const CONFIG_VARIABLE = new RegExp(
  `^(${[
    ...['PORT', 'HOST$', 'TRUST_PROXY$', 'AUTH_', 'DATABASE_', 'DATA_DIR', 'JWT_', 'ENCRYPTION_'],
    ...['GRAPH_API_', 'META_', 'PUBLIC_URL', 'SCHEDULER_', 'DELIVERY_', 'CHANNEL_RATE_'],
    ...['SHUTDOWN_', 'AGENT_LLM_', 'AGENT_EVENTS_', 'OPT_OUT_', 'OPT_IN_', 'LOG_', 'RATE_LIMIT_'],
    ...['MCP_', 'OAUTH_', 'TOOL_', 'HTTP_', 'METRICS_', 'RETENTION_', 'MEDIA_', 'TEMPLATE_'],
    ...['SANDBOX_'],
    ...TOOLKITS_TESTING.flatMap((toolkit) => toolkit.variablePrefix ?? []),
  ].join('|')})`,
);

export interface TestEnvironment {
  dataDir: string;
  logFile: string;
  /** The PostgreSQL database of its own, with TEST_DATABASE_URL. */
  database?: { url: string; drop: () => Promise<void> };
}

/**
 * What a test app or a medium test module boots on: a fresh DATA_DIR and a database of its own (a
 * copy of the one the run migrated, see template-database.ts), unless `overrides` names them; and
 * process.env holding exactly the base variables and `overrides` among agentline's.
 */
export async function prepareTestEnvironment(overrides: Env = {}): Promise<TestEnvironment> {
  const dataDir = overrides.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'agentline-test-'));
  const logFile = join(dataDir, `test-${randomUUID()}.log`);
  const database = 'DATABASE_URL' in overrides ? undefined : await createTestDatabase();
  const env: Env = {
    ...baseEnv(),
    DATABASE_URL: database?.url,
    DATA_DIR: dataDir,
    LOG_FILE: logFile,
    ...overrides,
  };
  if (overrides.DATA_DIR === undefined && env.DATABASE_URL === undefined) {
    copyEmbeddedTemplate(dataDir);
  }
  for (const key of Object.keys(process.env))
    if (CONFIG_VARIABLE.test(key)) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
  return { dataDir, logFile, database };
}

/**
 * Boots the whole AppModule, configured exactly as main.ts does, on a fresh data directory. Its
 * database starts as a copy of the one the run migrated once (see template-database.ts), except
 * when the test passes a DATA_DIR of its own: then the app boots on exactly what is there.
 */
export async function startApp(
  overrides: Env = {},
  {
    clock,
    tools,
    modules = [],
  }: {
    clock?: Clock;
    /** Modules of the test's own, booted beside AppModule (a channel kind that only tests have). */
    modules?: Type[];
    /** Changes the tools' configuration as read from the environment (a toolkit of the test's own). */
    tools?: (config: ToolsConfig) => ToolsConfig;
  } = {},
): Promise<TestApp> {
  const { dataDir, logFile, database } = await prepareTestEnvironment(overrides);
  // Only time is replaced (when a test needs to move it), and configuration extended (a toolkit
  // of the test's own); everything else is what production runs.
  let builder = Test.createTestingModule({ imports: [AppModule, ...modules] });
  if (clock) builder = builder.overrideProvider(Clock).useValue(clock);
  if (tools) {
    builder = builder.overrideProvider(TOOLS_CONFIG).useFactory({
      inject: [APP_CONFIG],
      factory: (shared: AppConfig) => tools(readToolsConfig(process.env, shared)),
    });
  }
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication({ bodyParser: false, bufferLogs: true });
  configureApp(app);
  await app.init();
  return {
    app,
    http: () => request(app.getHttpServer()),
    dataDir,
    logFile,
    logs: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    close: async () => {
      await closeApp(app);
      await database?.drop();
    },
  };
}

/**
 * With TEST_DATABASE_URL (PostgreSQL), every app gets a database of its own, created (from the
 * migrated template) and dropped here, so that suites are as isolated as on the embedded database
 * (fresh DATA_DIR per app).
 */
export async function createTestDatabase(): Promise<
  { url: string; drop: () => Promise<void> } | undefined
> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) return undefined;
  const name = `agentline_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}${postgresTemplateClause()}`);
  return {
    url: databaseUrl(adminUrl, name),
    drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

export interface TokenOptions {
  org?: string;
  sub?: string;
  claims?: Record<string, unknown>;
  secret?: string;
  options?: jwt.SignOptions;
}

/** A valid HS256 token for the test secret; tests state only what differs. */
export function tokenFor({
  org,
  sub = 'user-1',
  claims = {},
  secret = TEST_JWT_SECRET,
  options = {},
}: TokenOptions = {}): string {
  return jwt.sign({ organization_id: org ?? newOrganization(), ...claims }, secret, {
    algorithm: 'HS256',
    subject: sub,
    // An explicit `exp` claim replaces the default lifetime.
    ...('exp' in claims ? {} : { expiresIn: '1h' }),
    ...options,
  });
}

/** A fresh organization per test keeps tests independent, on PGlite and PostgreSQL alike. */
export const newOrganization = (): string => `org-${randomUUID()}`;

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
