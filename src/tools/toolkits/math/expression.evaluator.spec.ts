import { evaluateExpression, ExpressionError, roundTo, tidyNumber } from './expression.evaluator';

describe('evaluateExpression', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['7 % 3', 1],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['+4 - -1', 5],
    ['(1200 * 0.075) / 12', 7.5],
    ['1.5e3 + .5', 1500.5],
    ['2E-3 * 1000', 2],
    ['sqrt(16) + abs(-3)', 7],
    ['round(2.5) + floor(1.9) + ceil(1.1)', 6],
    ['round(1.005, 2)', 1.01],
    ['round(-2.5)', -3],
    ['min(3, 1, 2) + max(4, 9)', 10],
    ['log(1000)', 3],
    ['log(8, 2)', 3],
    ['ln(e)', 1],
    ['exp(0)', 1],
    ['sin(0) + cos(0) + tan(0)', 1],
    ['PI', Math.PI],
    ['Sqrt(9)', 3],
  ])('%s = %p', (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 12);
  });

  it('reads variables', () => {
    expect(evaluateExpression('sqrt(x^2 + y^2)', { x: 3, y: 4 })).toBe(5);
    expect(evaluateExpression('rate_1 * 2', { rate_1: 0.25 })).toBe(0.5);
  });

  it.each([
    ['', 'The expression is empty.'],
    ['1 +', 'The expression ends too early.'],
    ['1 / 0', 'Division by zero at position 3.'],
    ['5 % (2 - 2)', 'Modulo by zero at position 3.'],
    ['(1 + 2', 'Expected ")" at the end of the expression.'],
    ['1 + 2)', 'Unexpected ")" at position 6.'],
    ['2 3', 'Unexpected number 3 at position 3.'],
    ['sqrt(-1)', 'The result is not a finite number.'],
    ['10 ^ 400', 'The result is not a finite number.'],
    ['foo + 1', 'Unknown name "foo" at position 1; give its value in variables.'],
    ['sqrt(1, 2)', 'sqrt() takes 1 argument, got 2.'],
    ['max()', 'max() takes at least 1 argument, got 0.'],
    ['round(1, 2, 3)', 'round() takes 1 or 2 arguments, got 3.'],
    ['round(1.5, 16)', 'round(x, digits) takes 0 to 15 digits.'],
    ['log(8, 1)', 'log(x, base) needs a positive base other than 1.'],
    ['sqrt 4', 'Expected "(" at position 6, found number 4.'],
    ['1 + $', 'Unexpected character "$" at position 5.'],
  ])('refuses %p: %s', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(new ExpressionError(message));
  });

  it('cannot reach JavaScript: no property access, strings or calls of anything else', () => {
    for (const attack of [
      'constructor',
      'process.exit(1)',
      '"a"',
      "this['x']",
      'x.constructor',
      'toString()',
      '__proto__',
    ]) {
      expect(() => evaluateExpression(attack, {})).toThrow(ExpressionError);
    }
  });

  it('refuses deep nesting and huge expressions instead of overflowing the stack', () => {
    expect(() => evaluateExpression(`${'('.repeat(3000)}1${')'.repeat(3000)}`)).toThrow(
      'The expression is nested too deeply.',
    );
    expect(() => evaluateExpression('-'.repeat(3000) + '1')).toThrow(
      'The expression is nested too deeply.',
    );
    expect(() => evaluateExpression('1+'.repeat(6000) + '1')).toThrow('longer than 10000');
  });
});

describe('roundTo and tidyNumber', () => {
  it('rounds half away from zero at the written decimal', () => {
    expect(roundTo(1.005, 2)).toBe(1.01);
    expect(roundTo(-1.005, 2)).toBe(-1.01);
    expect(roundTo(2.345, 0)).toBe(2);
    expect(roundTo(123456.789, 1)).toBe(123456.8);
    expect(roundTo(1e21 + 0.5, 2)).toBe(1e21);
    expect(Object.is(roundTo(-0.0001, 2), 0)).toBe(true);
  });

  it('drops floating-point noise but keeps integers exact', () => {
    expect(tidyNumber(0.1 + 0.2)).toBe(0.3);
    expect(tidyNumber(2 ** 53)).toBe(9007199254740992);
    expect(tidyNumber(1 / 3)).toBe(0.333333333333333);
  });
});
