import { DataSource } from 'typeorm';
import { inlined, transactionInOneRoundTrip } from '../../src/database/one-round-trip';
import { MediumModule, startMediumModule } from '../support/medium-module';

/**
 * Statements sent in one round trip carry their parameters written in as SQL literals: whatever a
 * value holds, PostgreSQL must read back exactly what bound parameters would have given it.
 */
describe('transactionInOneRoundTrip (medium)', () => {
  let medium: MediumModule;
  let dataSource: DataSource;

  beforeAll(async () => {
    medium = await startMediumModule({ imports: [] });
    dataSource = medium.db;
  });
  afterAll(async () => medium.close());

  const awkward = [
    "it's",
    'back\\slash \\\\ and \\x41',
    "'; DROP TABLE deliveries; --",
    '$1 $2 $$ $tag$',
    'emoji 😀, accents éü, RTL ‏שלום',
    '-- not a comment',
    '',
  ];

  it('reads strings, numbers, booleans, nulls and arrays back as bound parameters would', async () => {
    const params = [awkward, -5, 0, 2.5, true, null, awkward[2]];
    const sql =
      'SELECT $1::text[] AS texts, -$2::int AS negated, $3::int AS zero, $4::float8 AS half, ' +
      '$5::boolean AS yes, $6::text AS nothing, $7::text AS injected -- $1 trailing comment';
    const [bound] = (await dataSource.query(sql, params)) as unknown[];
    const [rows] = await transactionInOneRoundTrip(dataSource, [{ sql, params }]);
    expect(rows).toEqual([bound]);
    expect(rows[0]).toMatchObject({ negated: 5, injected: awkward[2], texts: awkward });
  });

  it('commits the statements together, and rolls all of them back when one fails', async () => {
    await dataSource.query('CREATE TABLE IF NOT EXISTS round_trip_probe (v text)');
    await transactionInOneRoundTrip(
      dataSource,
      [
        { sql: 'INSERT INTO round_trip_probe (v) VALUES ($1)', params: ['first'] },
        { sql: 'INSERT INTO round_trip_probe (v) VALUES ($1)', params: ["sec'ond"] },
      ],
      [],
      undefined,
      true,
    );
    await expect(
      transactionInOneRoundTrip(dataSource, [
        { sql: 'INSERT INTO round_trip_probe (v) VALUES ($1)', params: ['lost'] },
        { sql: 'SELECT 1 / $1::int', params: [0] },
      ]),
    ).rejects.toThrow(/division by zero/);
    const rows: { v: string }[] = await dataSource.query(
      'SELECT v FROM round_trip_probe ORDER BY v',
    );
    expect(rows.map((row) => row.v)).toEqual(['first', "sec'ond"]);
    // The connection went back to the pool usable, not inside an aborted transaction.
    await expect(dataSource.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
    await dataSource.query('DROP TABLE round_trip_probe');
  });

  it('refuses a parameter it cannot write as a literal, or one that is missing', () => {
    expect(() => inlined({ sql: 'SELECT $2', params: [1] })).toThrow('no parameter $2');
    expect(() => inlined({ sql: 'SELECT $1', params: [Number.NaN] })).toThrow(/finite/);
    expect(() => inlined({ sql: 'SELECT $1', params: [{ a: 1 }] })).toThrow(/no SQL literal/);
    expect(inlined({ sql: 'SELECT $1, $10', params: [1, 2, 3, 4, 5, 6, 7, 8, 9, 'x'] })).toBe(
      "SELECT (1), ('x')",
    );
  });
});
