import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { describeDatabaseError, isDatabaseUnavailable } from '../common/database-errors';

/** Pauses between attempts: quick at first (a database that is just starting), then every 5 s. */
const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 5_000];

/** Start-up could not get a database: the message is the whole story, no stack needed. */
export class DatabaseStartupError extends Error {}

export interface DatabaseWait {
  url: string;
  /** Time-out of one connection attempt. */
  connectTimeoutMs: number;
  /** How long to keep trying; 0 keeps trying for ever. */
  timeoutMs: number;
  /** Told once per failed attempt, with a line for the operator. */
  onWaiting: (line: string) => void;
}

/** `host:port` of a PostgreSQL URL: what messages show of it (never the user or password). */
export function databaseAddress(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    return `${host}:${parsed.port || '5432'}`;
  } catch {
    return 'DATABASE_URL (not a valid URL)';
  }
}

/** Driver messages do not carry the password, but a message that reaches the log never may. */
function withoutPassword(text: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  return password.length > 0 ? text.split(password).join('***') : text;
}

/**
 * Waits until PostgreSQL accepts a connection and answers `SELECT 1`, so that a replica started
 * while the database is down (or still starting, as under docker compose) comes up when it does,
 * instead of dying. Only errors that can pass are waited out: a wrong password or a database
 * that does not exist fail at once.
 */
export async function waitForDatabase(wait: DatabaseWait): Promise<void> {
  const address = databaseAddress(wait.url);
  const deadline = wait.timeoutMs > 0 ? Date.now() + wait.timeoutMs : Infinity;
  let lastAttempt = false;
  for (let attempt = 1; ; attempt++) {
    const client = new Client({
      connectionString: wait.url,
      connectionTimeoutMillis: wait.connectTimeoutMs,
    });
    // A failed connection may still emit an error after connect() rejected.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      const reason = withoutPassword(describeDatabaseError(error), wait.url);
      if (!isDatabaseUnavailable(error)) {
        throw new DatabaseStartupError(`cannot use the database at ${address}: ${reason}`);
      }
      const remainingMs = deadline - Date.now();
      if (lastAttempt || remainingMs <= 0) {
        throw new DatabaseStartupError(
          `the database at ${address} did not answer within ${wait.timeoutMs / 1000} s ` +
            `(${attempt} attempts; DATABASE_STARTUP_TIMEOUT_MS): ${reason}`,
        );
      }
      wait.onWaiting(`waiting for the database at ${address} (attempt ${attempt}): ${reason}`);
      const delayMs = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1];
      // The last attempt is made at the deadline, not after it.
      lastAttempt = delayMs >= remainingMs;
      await sleep(Math.min(delayMs, remainingMs));
    } finally {
      // Not awaited: ending a connection that never opened may never settle.
      client.end().catch(() => undefined);
    }
  }
}
