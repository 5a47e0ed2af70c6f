import { clientOf } from './auth-failure-limiter';

describe('clientOf', () => {
  it('charges an IPv4 address, also when Node reports it IPv4-mapped', () => {
    expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('charges the /64 of an IPv6 address', () => {
    expect(clientOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(clientOf('::1')).toBe('::/64');
  });

  it('puts what is not an address under one key', () => {
    expect(clientOf(undefined)).toBe('unknown');
    expect(clientOf('')).toBe('unknown');
    expect(clientOf('not-an-address')).toBe('unknown');
  });
});
