import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What every log line written inside a piece of work carries: the request's id for HTTP
 * requests; the organization, follow-up, delivery or channel for background work. Lines logged
 * outside any context (start-up, timers) carry none.
 */
export interface LogContext {
  request_id?: string;
  organization_id?: string;
  follow_up_id?: string;
  delivery_id?: string;
  channel_id?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `context` on every line it logs, replacing (not merging) any outer one. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentLogContext(): LogContext | undefined {
  return storage.getStore();
}
