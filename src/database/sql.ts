/**
 * The rows of an `UPDATE/DELETE ... RETURNING`. TypeORM's postgres driver answers `[rows, count]`
 * for those on pg, and plain rows on PGlite (whose results carry no `command`); this reads both.
 */
export function returnedRows<T>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}
