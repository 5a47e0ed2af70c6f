import { jsonNestingDepth } from './input-guards';

/** A wall-clock bound, so in the e2e-alone project (run alone, retried once). */
describe('jsonNestingDepth (alone)', () => {
  it('stays linear on a megabyte', () => {
    const started = Date.now();
    expect(jsonNestingDepth(Buffer.from(`[${'"[{",'.repeat(200_000)}1]`, 'utf8'))).toBe(1);
    // Generous for a loaded machine: a quadratic scan of a megabyte would take minutes.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
