import { Logger } from '@nestjs/common';
import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { AppConfig } from '../config/app-config';
import { serializedPGliteDriver } from './serialized-pglite.pool';

/**
 * PostgreSQL with DATABASE_URL, else embedded PGlite in DATA_DIR; the same migrations. Entities
 * come from the modules that own them (TypeOrmModule.forFeature, autoLoadEntities in
 * DatabaseModule); the migrations runner needs none.
 */
export function dataSourceOptions(config: AppConfig): DataSourceOptions {
  const common = {
    type: 'postgres' as const,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    // Migrations only: synchronize loses data (TypeORM #2344, #6641).
    synchronize: false,
    migrationsRun: false,
  };
  if (config.databaseUrl) {
    return {
      ...common,
      url: config.databaseUrl,
      extra: {
        max: 10,
        // A request waits this long for a connection, then answers 503 database_unavailable
        // instead of hanging while the database is away.
        connectionTimeoutMillis: config.database.connectTimeoutMs,
        // Connections that a dead network leaves half-open are found and dropped.
        keepAlive: true,
        application_name: 'agentline',
      },
    };
  }
  return { ...common, driver: serializedPGliteDriver(config.dataDir) };
}

const isEmbedded = (options: DataSourceOptions): boolean =>
  options.type === 'postgres' && options.driver !== undefined;

/** The embedded database (PGlite): it runs its statements in this process's own thread. */
export const isEmbeddedDataSource = (dataSource: DataSource): boolean =>
  isEmbedded(dataSource.options);

/** Opens the database and applies pending migrations before anything else can use it. */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = new DataSource(options);
  await dataSource.initialize();
  try {
    await runMigrations(dataSource);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

const MIGRATION_LOCK_KEY = 7_331_001;

/**
 * Applies pending migrations. Replicas that start together on PostgreSQL take an advisory lock
 * first, so that each migration runs once; the embedded database has one process by construction.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const apply = async () => {
    const started = performance.now();
    const applied = (await dataSource.runMigrations({ transaction: 'each' })).map(
      (migration) => migration.name,
    );
    if (applied.length > 0) {
      new Logger('Database').log(
        `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    return applied;
  };
  if (isEmbedded(dataSource.options)) return apply();
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await apply();
  } finally {
    await runner
      .query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
      .catch(() => undefined);
    await runner.release();
  }
}
