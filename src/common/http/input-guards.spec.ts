import {
  findUnacceptableValue,
  jsonNestingDepth,
  jsonPathAt,
  MAX_OBJECT_KEYS,
  scanJsonStructure,
} from './input-guards';

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

  it('stops early past the limit, and reads strings of brackets as strings', () => {
    const deep = '['.repeat(1_000_000);
    expect(jsonNestingDepth(Buffer.from(deep), 64)).toBe(65);
    // How long a megabyte of them takes: input-guards.alone-spec.ts.
    expect(depth(`[${'"[{",'.repeat(1_000)}1]`)).toBe(1);
  });
});

describe('scanJsonStructure and jsonPathAt', () => {
  const wide = (n: number) =>
    JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'a:b,c'])));
  const scan = (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    const { wideObjectAt } = scanJsonStructure(bytes, 64, 3);
    return wideObjectAt < 0 ? undefined : jsonPathAt(bytes, wideObjectAt);
  };

  it('finds the first object with more keys than allowed, counting only its own', () => {
    expect(scan('{"a":{"x":1,"y":{"p":1,"q":2,"r":3}},"b":[1,2]}')).toBeUndefined();
    expect(scan(`{"a":[1,{"b":${wide(3)}},${wide(4)}]}`)).toBe('a[2]');
    expect(scan(`{"a\\"x":{"b":${wide(4)}}}`)).toBe('a"x.b');
    expect(scan(wide(4))).toBe('');
    // Colons and commas inside strings are not keys or items.
    expect(scan(`[${wide(3)},"x,y",${wide(4)}]`)).toBe('[2]');
  });

  it('counts keys of a 120,000-key body without parsing it', () => {
    const bytes = Buffer.from(`{"input":{"nested":${wide(120_000)}}}`);
    const { wideObjectAt } = scanJsonStructure(bytes, 64, MAX_OBJECT_KEYS);
    expect(jsonPathAt(bytes, wideObjectAt)).toBe('input.nested');
  });
});

describe('findUnacceptableValue', () => {
  const at = (field: string, reason: string) => ({ field, reason });

  it('names the first string or key holding NUL', () => {
    expect(findUnacceptableValue({ a: 'ok', b: [1, { c: 'x\u0000' }] })).toEqual(
      at('b[1].c', 'nul'),
    );
    expect(findUnacceptableValue({ 'k\u0000': 1 })).toEqual(at('k\\u0000', 'nul'));
    expect(findUnacceptableValue(['a', 'b\u0000'], 'ids')).toEqual(at('ids[1]', 'nul'));
    expect(findUnacceptableValue('\u0000', 'id')).toEqual(at('id', 'nul'));
  });

  it('names unpaired surrogates in values and keys, escaped in a key', () => {
    expect(findUnacceptableValue({ a: { b: 'x\ud800y' } })).toEqual(at('a.b', 'lone_surrogate'));
    expect(findUnacceptableValue({ a: ['\udfff'] })).toEqual(at('a[0]', 'lone_surrogate'));
    expect(findUnacceptableValue({ 'k\udc00': 1 })).toEqual(at('k\\udc00', 'lone_surrogate'));
  });

  it('names numbers JSON.parse read as Infinity', () => {
    expect(findUnacceptableValue(JSON.parse('{"a":{"b":[1e400]}}'))).toEqual(
      at('a.b[0]', 'non_finite_number'),
    );
    expect(findUnacceptableValue(JSON.parse('-1e999'), 'x')).toEqual(at('x', 'non_finite_number'));
  });

  it('names an object with more than MAX_OBJECT_KEYS keys, however deep', () => {
    const wide = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(findUnacceptableValue({ params: { a: [wide(MAX_OBJECT_KEYS)] } })).toBeUndefined();
    expect(findUnacceptableValue({ params: { a: [wide(MAX_OBJECT_KEYS + 1)] } })).toEqual(
      at('params.a[0]', 'too_many_keys'),
    );
    expect(findUnacceptableValue(wide(120_000))).toEqual(at('', 'too_many_keys'));
  });

  it('finds nothing in clean input, unicode and paired surrogates included', () => {
    expect(
      findUnacceptableValue({
        a: 'héllo 👋 \ud83d\ude00',
        b: [null, 1, -0.5e300, true, { c: '\u0001' }],
      }),
    ).toBeUndefined();
  });
});
