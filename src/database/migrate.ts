/* Applies pending migrations and exits: `npm run migration:run`. */
import 'reflect-metadata';
import { loadConfig } from '../config/app-config';
import { loadDotEnv } from '../config/dot-env';
import { dataSourceOptions, openDataSource } from './data-source';
import { waitForDatabase } from './wait-for-database';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  if (config.databaseUrl) {
    await waitForDatabase({
      url: config.databaseUrl,
      connectTimeoutMs: config.database.connectTimeoutMs,
      timeoutMs: config.database.startupTimeoutMs,
      onWaiting: (line) => process.stderr.write(`${line}\n`),
    });
  }
  const dataSource = await openDataSource(dataSourceOptions(config));
  const migrations = await dataSource.query('SELECT name FROM schema_migrations ORDER BY id');
  process.stdout.write(`Database is at migration ${migrations.at(-1)?.name ?? '(none)'}\n`);
  await dataSource.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `Migration failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
