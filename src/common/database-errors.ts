import { QueryFailedError } from 'typeorm';

/** True when the error is PostgreSQL's unique_violation on the named constraint or index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: string; constraint?: string; message?: string };
  return (
    driverError.code === '23505' &&
    (driverError.constraint === constraint || (driverError.message ?? '').includes(constraint))
  );
}
