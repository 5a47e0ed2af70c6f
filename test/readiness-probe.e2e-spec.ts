import { DataSource, QueryRunner } from 'typeorm';
import { eventually } from './support/eventually';
import { TcpProxy } from './support/tcp-proxy';
import { createTestDatabase, startApp, TestApp } from './support/test-app';

/**
 * Readiness answers from a probe that never waits behind the application's own work: a pool whose
 * connections are all held (PostgreSQL), or a transaction holding the one embedded connection,
 * does not make the replica look down, while a database that is really away does.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;
const onEmbedded = process.env.TEST_DATABASE_URL ? describe.skip : describe;

/** The size of the TypeORM pool on PostgreSQL (src/database/data-source.ts). */
const POOL_SIZE = 10;

/** Query runners that each hold a connection in an open transaction, until released. */
async function holdConnections(dataSource: DataSource, count: number): Promise<QueryRunner[]> {
  const runners: QueryRunner[] = [];
  for (let i = 0; i < count; i++) {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query('SELECT 1');
    runners.push(runner);
  }
  return runners;
}

async function releaseAll(runners: QueryRunner[]): Promise<void> {
  for (const runner of runners) {
    await runner.rollbackTransaction().catch(() => undefined);
    await runner.release();
  }
}

onPostgres('Readiness with a saturated pool (e2e, PostgreSQL)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let t: TestApp;
  beforeAll(async () => {
    database = (await createTestDatabase())!;
    let url: string;
    ({ proxy, url } = await TcpProxy.forDatabaseUrl(database.url));
    t = await startApp({ DATABASE_URL: url, DATABASE_CONNECT_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    proxy?.restore();
    await t?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers ready while every pool connection is held, from a connection of its own', async () => {
    const dataSource = t.app.get(DataSource);
    const runners = await holdConnections(dataSource, POOL_SIZE);
    try {
      // The pool is really exhausted: a query of the application's own cannot get a connection.
      await expect(dataSource.query('SELECT 1')).rejects.toThrow(/timeout/i);
      for (let probe = 0; probe < 3; probe++) {
        const ready = await t.http().get('/health/ready').expect(200);
        expect(ready.body.checks).toMatchObject({
          database: { status: 'up' },
          migrations: { status: 'up' },
        });
        await t.http().get('/health').expect(200);
        await t.http().get('/health/live').expect(200, { status: 'ok' });
      }
      const [probe] = await runners[0].query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = 'agentline probe' AND datname = current_database()`,
      );
      expect(probe.n).toBe(1);
    } finally {
      await releaseAll(runners);
    }
    expect(t.logs()).not.toContain('database unavailable');
    expect(t.logs()).not.toContain('not ready');
  });

  it('is not ready while the database is away, and ready again on a new probe connection', async () => {
    await t.http().get('/health/ready').expect(200);
    proxy.cut();
    const ready = await t.http().get('/health/ready').expect(503);
    expect(ready.body).toMatchObject({ code: 'not_ready' });
    expect(ready.body.detail).toContain('database: it does not answer');
    expect(ready.body.detail).not.toContain('127.0.0.1');
    await t.http().get('/health/live').expect(200);
    proxy.restore();
    await eventually(() => t.http().get('/health/ready').expect(200), 10_000);
  });
});

onEmbedded('Readiness while a transaction holds the embedded database (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp()));
  afterAll(async () => t?.close());

  it('answers ready, saying the database is busy, while one transaction holds its connection', async () => {
    await t.http().get('/health/ready').expect(200);
    const [runner] = await holdConnections(t.app.get(DataSource), 1);
    try {
      for (let probe = 0; probe < 3; probe++) {
        const ready = await t.http().get('/health/ready').expect(200);
        expect(ready.body.checks).toMatchObject({
          database: { status: 'up', busy_ms: expect.any(Number) },
          migrations: { status: 'up' },
        });
        await t.http().get('/health/live').expect(200, { status: 'ok' });
      }
    } finally {
      await releaseAll([runner]);
    }
    const ready = await t.http().get('/health/ready').expect(200);
    expect(ready.body.checks.database).toEqual({ status: 'up' });
  });
});
