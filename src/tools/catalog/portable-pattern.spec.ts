import { unportablePatternConstructs } from './portable-pattern';

describe('unportablePatternConstructs', () => {
  it.each([
    ['^(?!\\.\\.?$)[A-Za-z0-9._-]{1,100}$', ['lookahead']],
    ['^(?=.*\\S)[^\\u0000-\\u001F]+$', ['lookahead']],
    ['(?<=@)\\w+', ['lookbehind']],
    ['(?<!x)y', ['lookbehind']],
    ['^(a)\\1$', ['backreference']],
    ['^(?<q>["\'])x\\k<q>$', ['named group', 'backreference']],
    ['^[\\p{L}\\p{N}_]+$', ['Unicode property escape']],
    ['^\\P{Cc}+$', ['Unicode property escape']],
    ['^\\u{1F600}$', ['code point escape']],
  ])('finds what a provider refuses in %s', (pattern, expected) => {
    expect(unportablePatternConstructs(pattern)).toEqual(expected);
  });

  it.each([
    '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$',
    '^(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}|\\.[A-Za-z0-9_-][A-Za-z0-9._-]{0,98})$',
    // Syntax characters escaped or inside a class are not syntax.
    '^\\(\\?!literal\\)$',
    '^[(?!=<]+$',
    '^[\\]\\\\(?=]x$',
    '^\\\\1$',
    '^[\\d\\s\\w]{2,3}|\\bword\\b|\\u00e9|\\x41$',
    '^a{2}(b|c)*?$',
  ])('leaves %s alone', (pattern) => {
    expect(unportablePatternConstructs(pattern)).toEqual([]);
  });
});
