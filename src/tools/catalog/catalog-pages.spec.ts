import { matchesIfNoneMatch } from './catalog-pages';

describe('matchesIfNoneMatch (RFC 9110 13.1.2)', () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    [' "x" ,W/"abc" ', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
    [undefined, false],
  ])('%s → %s', (header, matches) => {
    expect(matchesIfNoneMatch(header, etag)).toBe(matches);
  });
});
