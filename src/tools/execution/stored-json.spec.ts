import { boundedJson } from './stored-json';

const bytes = (text: string) => Buffer.byteLength(text);

describe('boundedJson', () => {
  it('keeps a value that fits exactly as it is', () => {
    const value = { text: 'x'.repeat(60_000), n: [1, 2, 3] };
    expect(boundedJson(value)).toEqual({ json: JSON.stringify(value), truncated: false });
  });

  it('cuts a long string, keeping the shape and the other fields', () => {
    const { json, truncated } = boundedJson({
      text: 'hello world. '.repeat(15_400),
      units: 'metric',
    });
    expect(truncated).toBe(true);
    expect(bytes(json)).toBeLessThanOrEqual(64 * 1024);
    const kept = JSON.parse(json);
    expect(kept.units).toBe('metric');
    expect(kept.text).toMatch(/^hello world\. hello/);
    expect(kept.text.endsWith('…')).toBe(true);
  });

  it('cuts long arrays, many keys and multi-byte text to the byte limit', () => {
    for (const value of [
      Array.from({ length: 100_000 }, (_, i) => ({ i, name: `item ${i}` })),
      Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`key${i}`, 'ü'.repeat(10)])),
      { emoji: '👋'.repeat(100_000) },
    ]) {
      const { json, truncated } = boundedJson(value, 10_000);
      expect(truncated).toBe(true);
      expect(bytes(json)).toBeLessThanOrEqual(10_000);
      expect(typeof JSON.parse(json)).toBe(typeof value);
    }
  });

  it('never splits a surrogate pair', () => {
    const { json } = boundedJson({ emoji: '👋'.repeat(50_000) }, 1_000);
    expect(JSON.parse(json).emoji).toMatch(/^(👋)+…$/u);
  });

  it('bounds a very deep value without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 1_000; i++) deep = { next: deep, pad: 'x'.repeat(100) };
    const { json, truncated } = boundedJson(deep as never, 2_000);
    expect(truncated).toBe(true);
    expect(bytes(json)).toBeLessThanOrEqual(2_000);
  });
});
