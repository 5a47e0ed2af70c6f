import { escapeLiteral } from 'pg';
import type { PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { isEmbeddedDataSource } from './data-source';
import { returnedRows } from './sql';

/** One statement with its `$n` parameters. */
export interface Statement {
  sql: string;
  params?: readonly unknown[];
}

/** A parameter as an SQL literal (strings through pg's own escaping, arrays as ARRAY[...]). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return escapeLiteral(value);
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  // Every array parameter is cast where it is used (`$1::uuid[]`), which types an empty ARRAY[].
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]`;
  throw new Error(`no SQL literal for a parameter of type ${typeof value}`);
}

/**
 * The statement with its parameters written in (the simple query protocol takes none). Each
 * literal is parenthesised, so that `-$1` or `$1::text` keep their meaning whatever the value.
 * Only for the outbox's own statements: their SQL has no `$n` inside a string, comment or
 * dollar quote, which this does not parse.
 */
export function inlined({ sql, params = [] }: Statement): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index < 0 || index >= params.length) throw new Error(`no parameter $${n}`);
    return `(${literal(params[index])})`;
  });
}

/**
 * Starts a transaction and runs `statements` in it in one round trip to PostgreSQL, then `rest`
 * (if any) on the same transaction, then commits: without `rest`, the COMMIT goes in the same
 * round trip. Each statement still plans and reads with its own snapshot, in order, as if sent one
 * by one. On a shared machine each round trip of a serial writer (the outbox's claims and outcome
 * writes) cost more than its statement. `settings` are `SET LOCAL` for the transaction (plan
 * settings). On the embedded database (one connection in this process, no round trips) the
 * statements simply run one after the other.
 */
export async function transactionInOneRoundTrip<T = unknown[][]>(
  dataSource: DataSource,
  statements: readonly Statement[],
  settings: readonly string[] = [],
  rest: (db: EntityManager, rows: unknown[][]) => Promise<T> = async (_, rows) =>
    rows as unknown as T,
  commitWithStatements = false,
): Promise<T> {
  if (isEmbeddedDataSource(dataSource)) {
    return dataSource.transaction(async (db) => {
      for (const setting of settings) await db.query(`SET LOCAL ${setting}`);
      const rows: unknown[][] = [];
      for (const { sql, params = [] } of statements) {
        rows.push(returnedRows<unknown>(await db.query(sql, [...params])));
      }
      return rest(db, rows);
    });
  }
  const runner = dataSource.createQueryRunner();
  const client = (await runner.connect()) as PoolClient;
  let open = false;
  try {
    const text = [
      'BEGIN',
      ...settings.map((setting) => `SET LOCAL ${setting}`),
      ...statements.map(inlined),
      ...(commitWithStatements ? ['COMMIT'] : []),
    ].join('\n;\n'); // on a line of its own: a trailing comment cannot swallow the separator
    open = true;
    const answered = (await client.query(text)) as unknown as QueryResult | QueryResult[];
    const results = Array.isArray(answered) ? answered : [answered];
    const expected = 1 + settings.length + statements.length + (commitWithStatements ? 1 : 0);
    // A statement that was two (a stray `;`) would shift every result after it.
    if (results.length !== expected) {
      throw new Error(`expected ${expected} results in one round trip, got ${results.length}`);
    }
    const rows = results
      .slice(1 + settings.length, 1 + settings.length + statements.length)
      .map((result) => result.rows as unknown[]);
    if (commitWithStatements) {
      open = false;
      return await rest(runner.manager, rows);
    }
    const value = await rest(runner.manager, rows);
    await client.query('COMMIT');
    open = false;
    return value;
  } finally {
    // A failed statement leaves the transaction open and aborted: roll it back before the
    // connection goes back to the pool.
    if (open) await client.query('ROLLBACK').catch(() => undefined);
    await runner.release();
  }
}
