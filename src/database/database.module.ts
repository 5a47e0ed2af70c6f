import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseOutageReporter } from '../common/database-errors';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseAvailability } from './database-availability';
import { DatabaseProbe } from './database-probe';
import { dataSourceOptions, openDataSource } from './data-source';
import { Retention } from './retention';

/**
 * Global: every module may report database errors to DatabaseAvailability, and register what
 * Retention prunes from its tables.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config),
        // Each module registers the entities it owns, once: TypeOrmModule.forFeature(X_ENTITIES).
        autoLoadEntities: true,
        // No retries here: main.ts has already waited for PostgreSQL (waitForDatabase, one line
        // per attempt), and TypeORM's own retries would log a stack trace each.
        toRetry: () => false,
      }),
      dataSourceFactory: async (options) => openDataSource(options!),
    }),
  ],
  providers: [
    DatabaseProbe,
    DatabaseAvailability,
    // For the problem filter, which common/ declares without importing database/.
    { provide: DatabaseOutageReporter, useExisting: DatabaseAvailability },
    Retention,
  ],
  exports: [DatabaseProbe, DatabaseAvailability, DatabaseOutageReporter, Retention],
})
export class DatabaseModule {}
