import { freePort } from './support/free-port';
import { DatabaseStartupError, waitForDatabase } from '../src/database/wait-for-database';

/**
 * Real refused connections against the retry schedule: how many attempts fit in 1.5 s depends on
 * the timers firing on time (a stall of half a second drops one), so this runs alone.
 */
describe('waitForDatabase (alone)', () => {
  it('prints one line per attempt and gives up at the limit with one line', async () => {
    const port = await freePort();
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
