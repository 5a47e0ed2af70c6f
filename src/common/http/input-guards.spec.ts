import { findNulCharacter, jsonNestingDepth } from './input-guards';

const depth = (text: string) => jsonNestingDepth(Buffer.from(text, 'utf8'));

describe('jsonNestingDepth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['[[],[[]],[]]', 3],
    ['"[[[["', 0],
    ['{"a":"\\"[[[","b":[]}', 2],
    ['{"a\\\\":[]}', 2],
    ['{"é[":"ü{"}', 1],
  ])('reads %s as %i deep', (text, expected) => {
    expect(depth(text)).toBe(expected);
  });

  it('stops early past the limit and stays linear on a megabyte', () => {
    const deep = '['.repeat(1_000_000);
    expect(jsonNestingDepth(Buffer.from(deep), 64)).toBe(65);
    const started = Date.now();
    expect(depth(`[${'"[{",'.repeat(200_000)}1]`)).toBe(1);
    // Generous for a loaded machine: a quadratic scan of a megabyte would take minutes.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('findNulCharacter', () => {
  it('names the first string or key holding NUL', () => {
    expect(findNulCharacter({ a: 'ok', b: [1, { c: 'x\u0000' }] })).toBe('b[1].c');
    expect(findNulCharacter({ 'k\u0000': 1 })).toBe('k\\u0000');
    expect(findNulCharacter(['a', 'b\u0000'], 'ids')).toBe('ids[1]');
    expect(findNulCharacter('\u0000', 'id')).toBe('id');
  });

  it('finds nothing in clean input, unicode included', () => {
    expect(
      findNulCharacter({ a: 'héllo 👋', b: [null, 1, true, { c: '\u0001' }] }),
    ).toBeUndefined();
  });
});
