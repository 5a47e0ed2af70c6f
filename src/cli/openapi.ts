/* Writes openapi.json from the code: `npm run openapi`. A test fails when the two drift apart. */
import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { buildOpenApiDocument, configureApp } from '../app.setup';

async function main(): Promise<void> {
  // A throw-away embedded database: generating the document must not need the real one.
  const dataDir = mkdtempSync(join(tmpdir(), 'agentline-openapi-'));
  for (const key of ['DATABASE_URL', 'JWT_PUBLIC_KEY', 'JWT_JWKS_URL']) delete process.env[key];
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    SCHEDULER_ENABLED: 'false',
    LOG_LEVEL: 'silent',
  });
  const app = await NestFactory.create(AppModule, { bodyParser: false, logger: false });
  configureApp(app);
  await app.init();
  const document = buildOpenApiDocument(app);
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
  const file = join(__dirname, '..', '..', 'openapi.json');
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`wrote ${Object.keys(document.paths).length} paths to openapi.json\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
