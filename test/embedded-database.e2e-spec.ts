import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { DataSource } from 'typeorm';
import { givenWhatsappChannel } from './support/given';
import { copyEmbeddedTemplate } from './support/template-database';
import { bearer, startApp, tokenFor } from './support/test-app';

const root = resolve(__dirname, '..');
const tsNode = [require.resolve('ts-node/dist/bin.js'), '--transpile-only'];
const run = promisify(execFile);

/**
 * The embedded (PGlite) mode only: these tests pin DATABASE_URL to unset. Each DATA_DIR starts from
 * the run's migrated database (a first boot on an empty directory is embedded-files' first test).
 */
describe('Embedded database (e2e)', () => {
  it('keeps the data across a restart on the same DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-restart-'));
    copyEmbeddedTemplate(dataDir);
    const auth = bearer(tokenFor({ org: 'org-restart' }));
    const first = await startApp({ DATABASE_URL: undefined, DATA_DIR: dataDir });
    const created = await givenWhatsappChannel(first, auth);
    await first.close();

    const second = await startApp({ DATABASE_URL: undefined, DATA_DIR: dataDir });
    try {
      const res = await second
        .http()
        .put(`/v1/channels/whatsapp/${created.id}`)
        .set(auth)
        .send({ access_token: 'EAAG-after-restart' })
        .expect(200);
      expect(res.body.data).toMatchObject({
        id: created.id,
        number_id: created.number_id,
        verification_token: created.verification_token,
        created_at: created.created_at,
      });
    } finally {
      await second.close();
    }
  });

  it('runs the embedded database with its memory settings (README: memory of the embedded database)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-settings-'));
    copyEmbeddedTemplate(dataDir);
    const t = await startApp({ DATABASE_URL: undefined, DATA_DIR: dataDir });
    try {
      const db = t.app.get(DataSource);
      expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
      expect(await db.query('SHOW maintenance_work_mem')).toEqual([
        { maintenance_work_mem: '16MB' },
      ]);
    } finally {
      await t.close();
    }
  });

  it('refuses a second process on the same DATA_DIR at once, with a clear message', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-lock-'));
    copyEmbeddedTemplate(dataDir);
    const holder = await startApp({ DATABASE_URL: undefined, DATA_DIR: dataDir });
    try {
      const child = spawn(process.execPath, [...tsNode, 'src/main.ts'], {
        cwd: root,
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', JWT_SECRET: 'x'.repeat(40) },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((done) => child.on('exit', done));
      expect(code).toBe(1);
      expect(stderr).toContain(
        `The embedded database in ${dataDir} is in use by another agentline process (pid ${process.pid})`,
      );
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      await holder.close();
    }
  });

  it('generates development secrets when nothing is configured, and mints tokens for them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-dev-'));
    copyEmbeddedTemplate(dataDir);
    const t = await startApp({
      DATABASE_URL: undefined,
      DATA_DIR: dataDir,
      JWT_SECRET: undefined,
      ENCRYPTION_KEY: undefined,
    });
    try {
      const secrets = join(dataDir, 'dev-secrets.json');
      expect(existsSync(secrets)).toBe(true);
      expect(statSync(secrets).mode & 0o077).toBe(0);
      const { stdout } = await run(
        process.execPath,
        [...tsNode, 'src/cli/token.ts', '--org', 'org-dev', '--sub', 'dev'],
        {
          cwd: root,
          env: { PATH: process.env.PATH, DATA_DIR: dataDir },
        },
      );
      const token = stdout.trim();
      const res = await t
        .http()
        .post('/v1/tools')
        .set(bearer(token))
        .send({ agent_id: 'a', name: 'Math.Calculate' })
        .expect(201);
      expect(res.body.data).toMatchObject({ organization_id: 'org-dev', created_by: 'dev' });
      // The test secret does not open a service that uses its own generated one.
      await t.http().get('/v1/tools/specs').set(bearer(tokenFor())).expect(401);
      // Another DATA_DIR has no secret yet: the token is signed with a new one, and it says so.
      const elsewhere = await run(
        process.execPath,
        [...tsNode, 'src/cli/token.ts', '--org', 'org-dev', '--sub', 'dev'],
        {
          cwd: root,
          env: { PATH: process.env.PATH, DATA_DIR: mkdtempSync(join(tmpdir(), 'agentline-dev-')) },
        },
      );
      expect(elsewhere.stderr).toContain('will refuse it');
      await t.http().get('/v1/tools/specs').set(bearer(elsewhere.stdout.trim())).expect(401);
      const help = await run(process.execPath, [...tsNode, 'src/cli/token.ts', '--help'], {
        cwd: root,
        env: { PATH: process.env.PATH },
      });
      expect(help.stdout).toMatch(/^usage: npm run token/);
    } finally {
      await t.close();
    }
  });

  it('reads .env from the working directory, the environment winning over the file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-dotenv-'));
    const secret = 'dotenv-secret-'.padEnd(48, 'x');
    writeFileSync(
      join(dataDir, '.env'),
      `# read by npm start, the token CLI and migration:run\nJWT_SECRET=${secret}\nJWT_ORGANIZATION_CLAIM=tenant\nDATA_DIR=${dataDir}\n`,
    );
    const mint = (env: Record<string, string>) =>
      run(
        process.execPath,
        [...tsNode, join(root, 'src/cli/token.ts'), '--org', 'org-env', '--sub', 'env'],
        { cwd: dataDir, env: { PATH: process.env.PATH, ...env } },
      );
    const fromFile = jwt.verify((await mint({})).stdout.trim(), secret) as jwt.JwtPayload;
    expect(fromFile).toMatchObject({ tenant: 'org-env', sub: 'env' });
    // A variable of the environment is not overridden by the file.
    const fromEnv = jwt.decode(
      (await mint({ JWT_ORGANIZATION_CLAIM: 'org' })).stdout.trim(),
    ) as jwt.JwtPayload;
    expect(fromEnv).toMatchObject({ org: 'org-env' });
  });

  /** Starts the service on a port something else listens on; what it printed and its exit code. */
  const startOnTakenPort = async (
    env: Record<string, string>,
    host?: string,
  ): Promise<{ port: number; code: number | null; stderr: string }> => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, host, done));
    const { port } = taken.address() as AddressInfo;
    try {
      const child = spawn(process.execPath, [...tsNode, 'src/main.ts'], {
        cwd: root,
        env: { PATH: process.env.PATH, PORT: String(port), LOG_LEVEL: 'silent', ...env },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((done) => child.on('exit', done));
      return { port, code, stderr };
    } finally {
      taken.close();
    }
  };
  const configuredSecrets = {
    JWT_SECRET: 'x'.repeat(40),
    ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  };

  it.each([
    // Generated secrets listen on 127.0.0.1 (HOST unset); configured ones on every interface.
    ['with its secrets configured: creates nothing', true, 'every interface'],
    ['with generated development secrets: creates only those', false, '127.0.0.1'],
  ] as const)(
    'checks the port before it creates a new embedded database, %s',
    async (_case, configured, where) => {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'agentline-port-first-')), 'data');
      // Every interface, as an operator's other service would: HOST unset binds them all too.
      const { port, code, stderr } = await startOnTakenPort({
        DATA_DIR: dataDir,
        ...(configured && configuredSecrets),
      });
      expect(code).toBe(1);
      // One line, naming the port: no "first start: creating the embedded database" before it.
      expect(stderr.trim().split('\n')).toEqual([
        `agentline failed to start: port ${port} is already in use on ${where}: stop what listens there, or set PORT to another port`,
      ]);
      if (configured) {
        expect(existsSync(dataDir)).toBe(false);
      } else {
        expect(readdirSync(dataDir)).toEqual(['dev-secrets.json']);
      }
    },
  );

  it('says in one line that the port is taken, without a stack trace', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agentline-port-'));
    copyEmbeddedTemplate(dataDir);
    const { port, code, stderr } = await startOnTakenPort(
      { DATA_DIR: dataDir, HOST: '127.0.0.1', ...configuredSecrets },
      '127.0.0.1',
    );
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `agentline failed to start: port ${port} is already in use on 127.0.0.1: stop what listens there, or set PORT to another port`,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
