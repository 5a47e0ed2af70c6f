import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';

/**
 * Creating and migrating a database is most of what booting a test app costs (PGlite's initdb alone
 * takes seconds). So the e2e run migrates one database, by booting the app once in jest's
 * globalSetup, and every test app starts from a copy of it: a copy of the PGlite data directory,
 * or a PostgreSQL database created from the migrated one as its TEMPLATE. The app still runs its
 * migrations at boot; they find nothing to do. Tests that are about a first boot pass a DATA_DIR of
 * their own, which is never filled from the template.
 */

/** Where globalSetup tells the test workers what it prepared. */
const EMBEDDED_TEMPLATE = 'AGENTLINE_TEST_TEMPLATE_PGDATA';
const POSTGRES_TEMPLATE = 'AGENTLINE_TEST_TEMPLATE_DATABASE';

/** PGlite's files, under DATA_DIR (see src/database/serialized-pglite.pool.ts). */
const PGDATA = 'pgdata';

/**
 * Boots an app once (with `boot`, which runs the real start-up and its migrations) and records the
 * migrated database for the test apps to copy. Returns what removes it at the end of the run.
 */
export async function prepareTemplateDatabase(
  boot: (
    databaseUrl: string | undefined,
  ) => Promise<{ dataDir: string; close: () => Promise<void> }>,
): Promise<() => Promise<void>> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const name = `agentline_template_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    const app = await boot(databaseUrl(adminUrl, name));
    await app.close();
    rmSync(app.dataDir, { recursive: true, force: true });
    process.env[POSTGRES_TEMPLATE] = name;
    return async () => {
      delete process.env[POSTGRES_TEMPLATE];
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    };
  }
  const app = await boot(undefined);
  await app.close();
  process.env[EMBEDDED_TEMPLATE] = join(app.dataDir, PGDATA);
  return async () => {
    delete process.env[EMBEDDED_TEMPLATE];
    rmSync(app.dataDir, { recursive: true, force: true });
  };
}

/** Fills a new DATA_DIR with the migrated embedded database, when the run prepared one. */
export function copyEmbeddedTemplate(dataDir: string): void {
  const template = process.env[EMBEDDED_TEMPLATE];
  if (template && existsSync(template))
    cpSync(template, join(dataDir, PGDATA), { recursive: true });
}

/** `TEMPLATE <migrated database>` for CREATE DATABASE, when the run prepared one. */
export const postgresTemplateClause = (): string => {
  const template = process.env[POSTGRES_TEMPLATE];
  return template ? ` TEMPLATE ${template}` : '';
};

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
