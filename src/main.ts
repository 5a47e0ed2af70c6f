import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule, readConfiguration } from './app.module';
import { configureApp } from './app.setup';
import { AppConfig } from './config/app-config';
import { EmbeddedDatabaseLock } from './database/embedded-database.lock';
import { preferMemoryOverSpeed } from './database/embedded-memory';
import { APP_CONFIG } from './config/config.module';
import { loadDotEnv } from './config/dot-env';
import { assertPortAvailable } from './common/http/port-check';
import { describeStartupFailure } from './common/startup-failure';
import { waitForDatabase } from './database/wait-for-database';
import { SANDBOX_CONFIG, SandboxConfig } from './sandbox';

async function bootstrap(): Promise<void> {
  // The operator's usual mistakes (bad configuration, a data directory in use) get a one-line
  // message before Nest starts, instead of a framework stack trace; so does a database that is
  // not there yet, which start-up waits for with a line per attempt.
  loadDotEnv();
  const preflight = readConfiguration(process.env).app;
  if (!preflight.databaseUrl) EmbeddedDatabaseLock.assertAvailable(preflight.dataDir);
  // A port in use is told before a new embedded database is created, or a database waited for.
  await assertPortAvailable(preflight.port, preflight.host);
  if (!preflight.databaseUrl) {
    preferMemoryOverSpeed();
    // Logs are held until Nest is up; this one must show while the wait happens.
    if (!existsSync(join(preflight.dataDir, 'pgdata', 'PG_VERSION'))) {
      process.stderr.write(
        `agentline: first start: creating the embedded database in ${preflight.dataDir} and applying the migrations (a few seconds)\n`,
      );
    }
  } else {
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
  // HOST unset: 127.0.0.1 on generated development secrets, else every interface (Node's default).
  await (config.host ? app.listen(config.port, config.host) : app.listen(config.port));
  const logger = new Logger('Main');
  const { address, family, port } = app.getHttpServer().address() as AddressInfo;
  const listening = family === 'IPv6' ? `[${address}]:${port}` : `${address}:${port}`;
  logger.log(
    `agentline listening on ${listening} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`}); public URL ${config.publicUrl}, API docs at ${config.publicUrl}/docs`,
  );
  if (app.get<SandboxConfig>(SANDBOX_CONFIG).enabled) {
    logger.log(
      `Meta sandbox on: channels talk to the built-in stand-in for Meta, not to Meta; chat view at ${config.publicUrl}/sandbox, simulated clients at POST /sandbox/{whatsapp|messanger}/{channel_id}/inbound (docs/sandbox.md)`,
    );
  }
  // Nest's shutdown hooks stop the service; this says so, so that a stop is told from a crash.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => logger.log(`${signal} received: stopping`));
  }
  if (config.devSecrets) {
    logger.log(
      `Using development secrets generated in ${config.dataDir}: for local use only (without HOST, the service then listens on 127.0.0.1).`,
    );
  }
  if (config.encryption.devKeyKeptFrom) {
    logger.warn(
      `ENCRYPTION_KEY differs from the development key in ${config.encryption.devKeyKeptFrom}: that key is kept for decrypting what the embedded database stored under it; tokens signed with its jwt_secret verify only while JWT_SECRET is unset.`,
    );
  }
  if (config.jwt.generated) {
    logger.log('Mint a token with: npm run token -- --org <org> --sub <user>');
  }
}

bootstrap().catch((error: unknown) => {
  // Start-up failures (bad configuration, a locked data directory, a port in use) are the
  // operator's to fix: say what, not where.
  process.stderr.write(`agentline failed to start: ${describeStartupFailure(error)}\n`);
  process.exit(1);
});
