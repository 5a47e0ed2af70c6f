import { evaluateExpression } from './expression.evaluator';

/** A wall-clock bound, so in the e2e-alone project (run alone, retried once). */
describe('evaluateExpression (alone)', () => {
  it('takes linear time up to the length limit, and huge powers end at once', () => {
    const started = performance.now();
    expect(evaluateExpression('1+'.repeat(4999) + '1')).toBe(5000);
    expect(evaluateExpression(`max(${'1,'.repeat(4990)}2)`)).toBe(2);
    expect(evaluateExpression(' '.repeat(9998) + '7')).toBe(7);
    expect(() => evaluateExpression('9^9^9^9^9')).toThrow('not a finite number');
    // Generous for a loaded machine: a quadratic or exponential path would take far longer.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
