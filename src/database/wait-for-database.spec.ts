import { createServer } from 'node:net';
import { databaseAddress, DatabaseStartupError, waitForDatabase } from './wait-for-database';

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('databaseAddress', () => {
  it.each([
    ['postgres://user:secret@db.internal:6432/agentline', 'db.internal:6432'],
    ['postgres://user:secret@db/agentline', 'db:5432'],
    ['postgres:///agentline?host=/var/run/postgresql', '/var/run/postgresql:5432'],
    ['not a url', 'DATABASE_URL (not a valid URL)'],
  ])('shows %s as %s, never the user or password', (url, address) => {
    expect(databaseAddress(url)).toBe(address);
  });
});

describe('waitForDatabase', () => {
  it('prints one line per attempt and gives up at the limit with one line', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const startedAt = Date.now();
    const waiting = waitForDatabase({
      url: `postgres://agentline:hunter2-secret@127.0.0.1:${port}/agentline`,
      connectTimeoutMs: 500,
      timeoutMs: 1_500,
      onWaiting: (line) => lines.push(line),
    });
    await expect(waiting).rejects.toThrow(DatabaseStartupError);
    await expect(waiting).rejects.toThrow(
      new RegExp(
        `^the database at 127\\.0\\.0\\.1:${port} did not answer within 1\\.5 s \\(3 attempts; DATABASE_STARTUP_TIMEOUT_MS\\): connect ECONNREFUSED`,
      ),
    );
    // Attempts at 0 s and 1 s print a line; the third, at the limit, fails instead.
    expect(lines).toEqual([
      expect.stringMatching(
        `^waiting for the database at 127\\.0\\.0\\.1:${port} \\(attempt 1\\): connect ECONNREFUSED`,
      ),
      expect.stringMatching(`\\(attempt 2\\): connect ECONNREFUSED`),
    ]);
    expect(lines.join('\n')).not.toContain('hunter2');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_500);
  });
});
