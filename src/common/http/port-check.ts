import { createServer } from 'node:net';

/**
 * Binds the port as `app.listen(port, host)` will, and lets it go at once: a port in use (or one
 * this user may not bind) fails here with listen's own error, which describeStartupFailure words
 * as one line naming the port, before start-up creates or waits for a database. Nest listens only
 * after every module has started (the embedded database created and migrated among them), and
 * the server it listens with does not exist before then, so the port is tried, not held. A
 * process that takes the port between the two binds still fails start-up, with the same line,
 * at Nest's listen. Port 0 (any free port) cannot be in use.
 */
export async function assertPortAvailable(port: number, host: string | undefined): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((bound, failed) => {
    probe.once('error', failed);
    probe.listen({ port, host }, bound);
  });
  await new Promise<void>((closed) => probe.close(() => closed()));
}
