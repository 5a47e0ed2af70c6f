import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../../config/app-config';
import { ManualClock } from '../../../test/support/manual-clock';
import { VerifiedTokens } from './verified-tokens';

const config = loadConfig({
  DATABASE_URL: 'postgres://unused/unused',
  JWT_SECRET: randomBytes(32).toString('hex'),
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  JWT_CLOCK_SKEW_SECONDS: '5',
});
const principal = { organizationId: 'org-1', subject: 'user-1' };

describe('VerifiedTokens', () => {
  const start = Date.parse('2026-11-24T10:00:00Z');
  let clock: ManualClock;
  let tokens: VerifiedTokens;
  const token = (claims: Record<string, unknown>) => jwt.sign(claims, 'k', { noTimestamp: true });

  beforeEach(() => {
    clock = new ManualClock(start);
    tokens = new VerifiedTokens(config, clock);
  });

  it('knows a remembered token, and only that exact string', () => {
    const good = token({ exp: start / 1000 + 3600 });
    tokens.remember(good, principal);
    expect(tokens.get(good)).toEqual(principal);
    expect(tokens.get(`${good.slice(0, -1)}A`)).toBeUndefined();
    expect(tokens.get(token({ exp: start / 1000 + 3601 }))).toBeUndefined();
  });

  it('forgets a token at its exp plus the allowed skew', () => {
    const short = token({ exp: start / 1000 + 10 });
    tokens.remember(short, principal);
    clock.advance(14_999);
    expect(tokens.get(short)).toEqual(principal);
    clock.advance(1);
    expect(tokens.get(short)).toBeUndefined();
  });

  it('trusts any token for a minute at most, so a key dropped from the JWKS stops working', () => {
    const long = token({ exp: start / 1000 + 86_400 });
    const without = token({ sub: 'no-exp' });
    tokens.remember(long, principal);
    tokens.remember(without, principal);
    clock.advance(59_999);
    expect(tokens.get(long)).toEqual(principal);
    expect(tokens.get(without)).toEqual(principal);
    clock.advance(1);
    expect(tokens.get(long)).toBeUndefined();
    expect(tokens.get(without)).toBeUndefined();
  });

  it('does not remember a token already past its exp and skew', () => {
    const expired = token({ exp: start / 1000 - 5 });
    tokens.remember(expired, principal);
    expect(tokens.get(expired)).toBeUndefined();
  });

  it('holds a bounded number of tokens, dropping the oldest', () => {
    const all = Array.from({ length: 5_001 }, (_, i) => token({ exp: start / 1000 + 60, n: i }));
    for (const each of all) tokens.remember(each, principal);
    expect(tokens.get(all[0])).toBeUndefined();
    expect(tokens.get(all[1])).toEqual(principal);
    expect(tokens.get(all[5_000])).toEqual(principal);
  });
});
