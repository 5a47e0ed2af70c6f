import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { startApp, TestApp } from './support/test-app';

const PROBLEM_JSON = /^application\/problem\+json/;

describe('Health probes (e2e)', () => {
  describe('with the scheduler running', () => {
    let t: TestApp;
    beforeAll(
      async () => (t = await startApp({ SCHEDULER_ENABLED: 'true', SCHEDULER_TICK_MS: '100' })),
    );
    afterAll(async () => t.close());

    it('is live at once and ready once a tick has run, without a token, and logs neither', async () => {
      await t.http().get('/health/live').expect(200, { status: 'ok' });
      const ready = await eventually(() => t.http().get('/health/ready').expect(200), 10_000);
      expect(ready.body).toMatchObject({
        status: 'ok',
        checks: {
          database: { status: 'up' },
          migrations: { status: 'up' },
          scheduler: { status: 'up' },
        },
      });
      expect(ready.body.checks.scheduler.last_tick_ms_ago).toBeGreaterThanOrEqual(0);
      const probes = t
        .logs()
        .split('\n')
        .filter((line) => line.includes('"path":"/health'));
      expect(probes).toEqual([]);
    });

    it('is not ready while a migration is not applied, and says so once', async () => {
      const db = t.app.get(DataSource);
      const [latest] = await db.query(
        'SELECT id, timestamp, name FROM schema_migrations ORDER BY timestamp DESC LIMIT 1',
      );
      await db.query('DELETE FROM schema_migrations WHERE id = $1', [latest.id]);
      try {
        for (let probe = 0; probe < 3; probe++) {
          const res = await t.http().get('/health/ready').expect(503);
          expect(res.headers['content-type']).toMatch(PROBLEM_JSON);
          expect(res.body).toMatchObject({
            code: 'not_ready',
            detail: 'Not ready: migrations: some migrations are not applied.',
          });
          expect(JSON.stringify(res.body)).not.toContain('stack');
        }
        // The process itself is fine: restarting it would not help.
        await t.http().get('/health/live').expect(200);
      } finally {
        await db.query('INSERT INTO schema_migrations (id, timestamp, name) VALUES ($1, $2, $3)', [
          latest.id,
          latest.timestamp,
          latest.name,
        ]);
      }
      await t.http().get('/health/ready').expect(200);
      const lines = t.logs().split('\n');
      const went = lines.findIndex((line) => line.includes('not ready: migrations'));
      expect(lines.filter((line) => line.includes('not ready: migrations'))).toHaveLength(1);
      expect(lines.slice(went).filter((line) => line.includes('ready again'))).toHaveLength(1);
    });
  });

  it('counts the scheduler as ready where it does not run', async () => {
    const t = await startApp({ SCHEDULER_ENABLED: 'false' });
    try {
      const ready = await t.http().get('/health/ready').expect(200);
      expect(ready.body.checks.scheduler).toEqual({ status: 'up', enabled: false });
    } finally {
      await t.close();
    }
  });
});
