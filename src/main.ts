import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { AppConfig, loadConfig } from './config/app-config';
import { EmbeddedDatabaseLock } from './database/embedded-database.lock';
import { APP_CONFIG } from './config/config.module';
import { waitForDatabase } from './database/wait-for-database';

async function bootstrap(): Promise<void> {
  // The operator's usual mistakes (bad configuration, a data directory in use) get a one-line
  // message before Nest starts, instead of a framework stack trace; so does a database that is
  // not there yet, which start-up waits for with a line per attempt.
  const preflight = loadConfig();
  if (!preflight.databaseUrl) EmbeddedDatabaseLock.assertAvailable(preflight.dataDir);
  else {
    await waitForDatabase({
      url: preflight.databaseUrl,
      connectTimeoutMs: preflight.database.connectTimeoutMs,
      timeoutMs: preflight.database.startupTimeoutMs,
      onWaiting: (line) => process.stderr.write(`${line}\n`),
    });
  }

  const app = await NestFactory.create(AppModule, { bodyParser: false, bufferLogs: true });
  configureApp(app);
  const config = app.get<AppConfig>(APP_CONFIG);
  await app.listen(config.port);
  const logger = app.get(Logger);
  logger.log(
    `agentline listening on ${config.publicUrl} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`}); API docs at ${config.publicUrl}/docs`,
  );
  if (config.jwt.generated) {
    logger.log(
      `Using a development JWT secret generated in ${config.dataDir}. Mint a token with: npm run token -- --org <org> --sub <user>`,
    );
  }
}

bootstrap().catch((error: unknown) => {
  // Start-up failures (bad configuration, a locked data directory) are the operator's to fix: say what, not where.
  process.stderr.write(
    `agentline failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
