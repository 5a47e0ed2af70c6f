import { ModuleMetadata } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../../src/common/clock';
import { CommonModule } from '../../src/common/common.module';
import { CryptoModule } from '../../src/common/crypto/crypto.module';
import { LoggingModule } from '../../src/common/logging/logging.module';
import { ConfigModule } from '../../src/config/config.module';
import { DatabaseModule } from '../../src/database/database.module';
import { MetricsModule } from '../../src/metrics/metrics.module';
import { ManualClock } from './manual-clock';
import { Env, prepareTestEnvironment } from './test-app';

export interface MediumModule {
  /** The module's providers, resolved by Nest as in production. */
  moduleRef: TestingModule;
  /** The real database: a copy of the migrated template (PGlite, or PostgreSQL). */
  db: DataSource;
  /** The only clock the providers see; time moves when the test says so. */
  clock: ManualClock;
  close: () => Promise<void>;
}

/**
 * A medium test's module (Immich's medium tests): the feature modules a test names, on the real
 * database and the global modules every feature relies on (configuration, logging, metrics, the
 * clock, crypto, the data source), with no HTTP and no background work: it is compiled, not
 * started, so no lifecycle hook runs (no pollers, no workers) and the test calls the providers
 * itself. Only the clock is replaced. One per test file, as an e2e file boots one app.
 */
export async function startMediumModule(
  { imports = [], providers = [] }: Pick<ModuleMetadata, 'imports' | 'providers'>,
  { env = {}, now = Date.now() }: { env?: Env; now?: number } = {},
): Promise<MediumModule> {
  const { database } = await prepareTestEnvironment({ LOG_LEVEL: 'warn', ...env });
  const clock = new ManualClock(now);
  const moduleRef = await Test.createTestingModule({
    imports: [
      ConfigModule,
      LoggingModule,
      MetricsModule,
      CommonModule,
      CryptoModule,
      DatabaseModule,
      ...imports,
    ],
    providers,
  })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  return {
    moduleRef,
    db: moduleRef.get<DataSource>(getDataSourceToken()),
    clock,
    close: async () => {
      await moduleRef.close();
      await database?.drop();
    },
  };
}
