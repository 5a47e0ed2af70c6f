import { QueryFailedError } from 'typeorm';
import { describeDatabaseError, isDatabaseUnavailable, isRefusedValue } from './database-errors';

const pgError = (message: string, code?: string) => Object.assign(new Error(message), { code });
const queryFailed = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', pgError('read ECONNRESET', 'ECONNRESET')],
    [
      'a connection that died under a query',
      queryFailed(pgError('Connection terminated unexpectedly')),
    ],
    ['a connect time-out', pgError('Connection terminated due to connection timeout')],
    ['a pool with no connection in time', pgError('timeout exceeded when trying to connect')],
    [
      'an administrator shutdown',
      queryFailed(pgError('terminating connection due to administrator command', '57P01')),
    ],
    ['a server still starting', pgError('the database system is starting up', '57P03')],
    ['a connection exception', pgError('connection failure', '08006')],
    ['no connection slot left', pgError('sorry, too many clients already', '53300')],
    [
      'an AggregateError (IPv4 and IPv6 both refused)',
      Object.assign(
        new AggregateError([pgError('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
        {
          code: 'ECONNREFUSED',
        },
      ),
    ],
    ['a cause chain', new Error('claim failed', { cause: pgError('read ETIMEDOUT', 'ETIMEDOUT') })],
  ])('is true for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', queryFailed(pgError('duplicate key value', '23505'))],
    ['a syntax error', queryFailed(pgError('syntax error at or near "SELEC"', '42601'))],
    ['a wrong password', pgError('password authentication failed for user "x"', '28P01')],
    ['a database that does not exist', pgError('database "x" does not exist', '3D000')],
    [
      'a statement time-out',
      queryFailed(pgError('canceling statement due to statement timeout', '57014')),
    ],
    ['anything else', new TypeError('x is not a function')],
    ['a string', 'connection terminated'],
    ['nothing', undefined],
  ])('is false for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isRefusedValue', () => {
  it.each([
    [
      'a NUL in text',
      queryFailed(pgError('invalid byte sequence for encoding "UTF8": 0x00', '22021')),
    ],
    ['a \\u0000 in jsonb', queryFailed(pgError('unsupported Unicode escape sequence', '22P05'))],
    ['a date out of range', queryFailed(pgError('date/time field value out of range', '22008'))],
    [
      'an index entry too big',
      queryFailed(pgError('index row size 2720 exceeds maximum', '54000')),
    ],
  ])('is true for %s', (_what, error) => {
    expect(isRefusedValue(error)).toBe(true);
  });

  it.each([
    ['a lost connection', queryFailed(pgError('Connection terminated unexpectedly'))],
    ['a serialization failure', queryFailed(pgError('could not serialize access', '40001'))],
    ['a deadlock', queryFailed(pgError('deadlock detected', '40P01'))],
    ['an administrator shutdown', pgError('terminating connection', '57P01')],
    ['a range error', new RangeError('Invalid time value')],
  ])('is false for %s', (_what, error) => {
    expect(isRefusedValue(error)).toBe(false);
  });
});

describe('describeDatabaseError', () => {
  it('reads the members of an AggregateError whose own message is empty', () => {
    const error = Object.assign(
      new AggregateError([pgError('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
      { code: 'ECONNREFUSED' },
    );
    expect(describeDatabaseError(error)).toBe('connect ECONNREFUSED ::1:5432');
  });

  it('keeps the first line only', () => {
    expect(describeDatabaseError(new Error('first\nsecond'))).toBe('first');
  });
});
