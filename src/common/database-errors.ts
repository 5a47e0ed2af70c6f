import { QueryFailedError } from 'typeorm';
import { ProblemException } from './http/problem';

/** True when the error is PostgreSQL's `sqlState` on the named constraint or index. */
function isViolationOf(error: unknown, sqlState: string, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string; message?: string };
  return (
    driverError.code === sqlState &&
    (driverError.constraint === constraint || (driverError.message ?? '').includes(constraint))
  );
}

/** PostgreSQL's unique_violation on the named constraint or index. */
export const isUniqueViolation = (error: unknown, constraint: string): boolean =>
  isViolationOf(error, '23505', constraint);

/** PostgreSQL's foreign_key_violation on the named constraint: the row referred to is gone. */
export const isForeignKeyViolation = (error: unknown, constraint: string): boolean =>
  isViolationOf(error, '23503', constraint);

/** Socket errors that mean the database server cannot be reached (Node's `code`). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  // The database's host name stopped resolving (its DNS record goes with the container).
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is there but will not serve: connection exceptions (class 08),
 * administrator or crash shutdown (57P01, 57P02), starting up or shutting down (57P03), and no
 * connection slot left (53300).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** What node-postgres and its pool say, without a code, when a connection dies or never comes. */
const UNAVAILABLE_MESSAGES = [
  'connection terminated', // unexpectedly, or "due to connection timeout"
  'timeout exceeded when trying to connect', // pg-pool: no connection within connectionTimeoutMillis
  'is not queryable', // a client whose connection failed or ended
];

/** The error itself, TypeORM's `driverError`, `cause` chains and AggregateError members. */
function* errorChain(error: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 4 || typeof error !== 'object' || error === null) return;
  const fields = error as Record<string, unknown>;
  yield fields;
  if (error instanceof QueryFailedError) yield* errorChain(error.driverError, depth + 1);
  yield* errorChain(fields.cause, depth + 1);
  if (Array.isArray(fields.errors)) {
    for (const member of fields.errors) yield* errorChain(member, depth + 1);
  }
}

/**
 * True when the error says the database cannot be reached or will not serve now (as opposed to
 * a query it refused): the one definition the API (503), `/health` and the logs go by.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const fields of errorChain(error)) {
    const code = typeof fields.code === 'string' ? fields.code : undefined;
    if (code !== undefined && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) {
      return true;
    }
    const message = typeof fields.message === 'string' ? fields.message.toLowerCase() : '';
    if (UNAVAILABLE_MESSAGES.some((known) => message.includes(known))) return true;
  }
  return false;
}

/**
 * SQLSTATEs about a value of the statement rather than the database: data exceptions (class 22:
 * NUL or an invalid escape in text, a date out of range) and program limits (class 54: an index
 * entry too big).
 */
const REFUSED_VALUE_SQLSTATE = /^(22|54)...$/;

/** True when PostgreSQL refused a value of the statement; the same statement would fail again. */
export function isRefusedValue(error: unknown): boolean {
  for (const fields of errorChain(error)) {
    if (typeof fields.code === 'string' && REFUSED_VALUE_SQLSTATE.test(fields.code)) return true;
  }
  return false;
}

/**
 * A one-line reason for logs and start-up messages. Node's AggregateError (a host name with an
 * IPv4 and an IPv6 address) has an empty message: its members say what happened.
 */
export function describeDatabaseError(error: unknown): string {
  const chain = [...errorChain(error)];
  const message = chain.find(
    (fields) => typeof fields.message === 'string' && fields.message.trim() !== '',
  )?.message as string | undefined;
  if (message !== undefined) return message.trim().split('\n')[0];
  const code = chain.find((fields) => typeof fields.code === 'string')?.code as string | undefined;
  return code ?? String(error);
}

/**
 * Where an error that means the database is away is reported, so that an outage is logged once
 * rather than per request. Declared in common/ for the problem filter and provided by
 * DatabaseModule (DatabaseAvailability), so that common/ never imports database/.
 */
export abstract class DatabaseOutageReporter {
  /** True when `error` means the database is away: it is then logged, once per outage. */
  abstract reportFailure(error: unknown): boolean;
}

/** Seconds a client is asked to wait (`Retry-After`) while the database is away. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export const databaseUnavailable = (): ProblemException =>
  new ProblemException('database_unavailable', 'The database is unavailable; retry later.', {
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
