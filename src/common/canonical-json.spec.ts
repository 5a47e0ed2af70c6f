import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('writes the same text for bodies that differ only in key order, spacing or number spelling', () => {
    const a = JSON.parse('{"b": 1.0, "a": {"y": [3, 1e0, {"d": 1, "c": 2}], "x": "é"}}') as unknown;
    const b = JSON.parse('{"a":{"x":"\\u00e9","y":[3,1,{"c":2,"d":1}]},"b":1}') as unknown;
    expect(canonicalJson(a)).toBe('{"a":{"x":"é","y":[3,1,{"c":2,"d":1}]},"b":1}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
  });

  it('keeps array order, and tells apart what JSON tells apart', () => {
    const differs = (x: string, y: string) =>
      expect(canonicalJson(JSON.parse(x))).not.toBe(canonicalJson(JSON.parse(y)));
    differs('[1,2]', '[2,1]');
    differs('{"a":1}', '{"a":"1"}');
    differs('{"a":null}', '{}');
    differs('{"a":[]}', '{"a":{}}');
    differs('{"a":{"b":1}}', '{"a.b":1}');
    differs('{"a":1,"b":2}', '{"a":1,"b":2,"c":3}');
  });

  it('tells a number too large for a double apart from null, which JSON.stringify writes for it', () => {
    const infinite = JSON.parse('{"x":1e400,"y":-1e400}') as unknown;
    expect(canonicalJson(infinite)).toBe('{"x":Infinity,"y":-Infinity}');
    expect(canonicalJson(infinite)).not.toBe(canonicalJson({ x: null, y: null }));
    expect(canonicalJson(infinite)).not.toBe(canonicalJson({ x: 'Infinity', y: '-Infinity' }));
    expect(canonicalJson([Infinity])).not.toBe(canonicalJson([-Infinity]));
  });

  it('sorts keys by UTF-16 code units, as RFC 8785 does', () => {
    // RFC 8785 section 3.2.3's sorting example, keys only.
    const value = JSON.parse(
      '{"\\u20ac":1,"\\r":2,"\\ufb33":3,"1":4,"\\ud83d\\ude00":5,"\\u0080":6,"\\u00f6":7}',
    ) as unknown;
    expect(canonicalJson(value)).toBe(
      '{"\\r":2,"1":4,"\u0080":6,"\u00f6":7,"\u20ac":1,"\ud83d\ude00":5,"\ufb33":3}',
    );
  });

  it('writes a key named __proto__ like any other, and no body as null', () => {
    const value = JSON.parse('{"__proto__":{"b":1,"a":2},"z":0}') as unknown;
    expect(canonicalJson(value)).toBe('{"__proto__":{"a":2,"b":1},"z":0}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(null)).toBe('null');
  });
});
