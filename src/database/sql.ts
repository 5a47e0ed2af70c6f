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

/** Anything that runs SQL: the DataSource, or the EntityManager of a transaction. */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

const insertStatements = new Map<string, string>();

/**
 * INSERT of one row given by column name. On hot write paths it replaces `repository.insert`,
 * whose query builder maps the entity and rebuilds the same SQL text on every call (about a
 * tenth of the CPU of creating a channel); the text here is built once per table and columns.
 */
export async function insertRow(
  db: Queryable,
  table: string,
  row: Record<string, unknown>,
): Promise<void> {
  const columns = Object.keys(row);
  const key = `${table}(${columns.join(',')})`;
  let statement = insertStatements.get(key);
  if (!statement) {
    const placeholders = columns.map((_, index) => `$${index + 1}`).join(', ');
    statement = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders})`;
    insertStatements.set(key, statement);
  }
  await db.query(statement, Object.values(row));
}
