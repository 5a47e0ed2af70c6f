import { databaseAddress } from './wait-for-database';

describe('databaseAddress', () => {
  it.each([
    ['postgres://user:secret@db.internal:6432/agentline', 'db.internal:6432'],
    ['postgres://user:secret@db/agentline', 'db:5432'],
    ['postgres:///agentline?host=/var/run/postgresql', '/var/run/postgresql:5432'],
    ['not a url', 'DATABASE_URL (not a valid URL)'],
  ])('shows %s as %s, never the user or password', (url, address) => {
    expect(databaseAddress(url)).toBe(address);
  });
});
