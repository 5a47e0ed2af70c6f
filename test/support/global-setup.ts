import { prepareTemplateDatabase } from './template-database';
import { startApp } from './test-app';

/** What globalTeardown (the same process, another module) runs to remove the template. */
export const REMOVE_TEMPLATE = Symbol.for('agentline.test.removeTemplate');
export type WithRemoveTemplate = typeof globalThis & { [REMOVE_TEMPLATE]?: () => Promise<void> };

/**
 * jest globalSetup of the e2e project: migrates the database every test app copies. It boots the
 * app in jest's own process, so the variables and umask that boot sets are put back afterwards:
 * the test workers start from the environment jest was given, plus where the template is.
 */
export default async function globalSetup(): Promise<void> {
  const environment = { ...process.env };
  const umask = process.umask();
  try {
    (globalThis as WithRemoveTemplate)[REMOVE_TEMPLATE] = await prepareTemplateDatabase(
      (databaseUrl) => startApp({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }),
    );
  } finally {
    process.umask(umask);
    for (const key of Object.keys(process.env)) {
      if (!(key in environment) && !key.startsWith('AGENTLINE_TEST_')) delete process.env[key];
    }
    Object.assign(process.env, environment);
  }
}
