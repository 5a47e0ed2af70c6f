/**
 * A safe arithmetic evaluator for Math.Calculate: a tokenizer and a recursive-descent parser that
 * compute as they parse. No eval, no Function, no property access: only numbers, variables, the
 * operators + - * / % ^ (and ** for ^), parentheses, and a fixed set of functions and constants.
 *
 * Precedence, loosest first: + -; * / %; unary + -; ^ (right-associative, so 2^3^2 is 2^9 and
 * -2^2 is -4, as in mathematics).
 */

export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

export const MAX_EXPRESSION_LENGTH = 10_000;
/** Deeper nesting than this is not arithmetic anyone writes; it would only exhaust the stack. */
const MAX_DEPTH = 200;

type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

interface FunctionDefinition {
  arity: readonly number[];
  apply: (...args: number[]) => number;
}

const FUNCTIONS: Readonly<Record<string, FunctionDefinition>> = {
  sqrt: { arity: [1], apply: Math.sqrt },
  abs: { arity: [1], apply: Math.abs },
  round: { arity: [1, 2], apply: (x, digits = 0) => roundTo(x, checkDigits(digits)) },
  floor: { arity: [1], apply: Math.floor },
  ceil: { arity: [1], apply: Math.ceil },
  min: { arity: [-1], apply: Math.min },
  max: { arity: [-1], apply: Math.max },
  log: {
    arity: [1, 2],
    apply: (x, base) => (base === undefined ? Math.log10(x) : logBase(x, base)),
  },
  ln: { arity: [1], apply: Math.log },
  exp: { arity: [1], apply: Math.exp },
  sin: { arity: [1], apply: Math.sin },
  cos: { arity: [1], apply: Math.cos },
  tan: { arity: [1], apply: Math.tan },
};

const CONSTANTS: Readonly<Record<string, number>> = { pi: Math.PI, e: Math.E };

/** Names the evaluator owns; a variable cannot take one of them. */
export function isReservedName(name: string): boolean {
  const key = name.toLowerCase();
  return key in FUNCTIONS || key in CONSTANTS;
}

export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Evaluates `expression`; throws ExpressionError naming the position of what is wrong. */
export function evaluateExpression(
  expression: string,
  variables: Readonly<Record<string, number>> = {},
): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`The expression is longer than ${MAX_EXPRESSION_LENGTH} characters.`);
  }
  const parser = new Parser(tokenize(expression), variables);
  const value = parser.parse();
  if (!Number.isFinite(value)) {
    throw new ExpressionError('The result is not a finite number.');
  }
  return value;
}

/**
 * Rounds half away from zero to `digits` decimals, shifting by decimal exponent rather than
 * multiplying, so that 1.005 rounds to 1.01 as written rather than to 1.00 as stored.
 */
export function roundTo(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  const shift = (x: number, by: number): number => {
    const [mantissa, exponent] = x.toExponential().split('e');
    return Number(`${mantissa}e${Number(exponent) + by}`);
  };
  const scaled = shift(Math.abs(value), digits);
  const rounded = shift(Math.round(scaled), -digits) * Math.sign(value);
  return rounded === 0 ? 0 : rounded;
}

/**
 * Drops binary floating-point noise (0.1 + 0.2 is 0.30000000000000004) by keeping 15 significant
 * digits, a double's decimal precision; integers are exact already and stay as they are.
 */
export function tidyNumber(value: number): number {
  if (!Number.isFinite(value) || Number.isInteger(value)) return value === 0 ? 0 : value;
  const tidy = Number(value.toPrecision(15));
  return tidy === 0 ? 0 : tidy;
}

function checkDigits(digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    throw new ExpressionError('round(x, digits) takes 0 to 15 digits.');
  }
  return digits;
}

function logBase(x: number, base: number): number {
  if (base <= 0 || base === 1)
    throw new ExpressionError('log(x, base) needs a positive base other than 1.');
  return Math.log(x) / Math.log(base);
}

// Sticky: each matches at `lastIndex` only, so tokenizing is one linear pass (no slices).
const SPACE = /\s+/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;

function matchAt(pattern: RegExp, source: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(source)?.[0];
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const space = matchAt(SPACE, source, at);
    if (space) {
      at += space.length;
      continue;
    }
    const number = matchAt(NUMBER, source, at);
    if (number) {
      tokens.push({ kind: 'number', value: Number(number), at });
      at += number.length;
      continue;
    }
    const name = matchAt(NAME, source, at);
    if (name) {
      tokens.push({ kind: 'name', value: name, at });
      at += name.length;
      continue;
    }
    if (source.startsWith('**', at)) {
      tokens.push({ kind: 'op', value: '^', at });
      at += 2;
      continue;
    }
    if ('+-*/%^(),'.includes(source[at])) {
      tokens.push({ kind: 'op', value: source[at], at });
      at += 1;
      continue;
    }
    throw new ExpressionError(`Unexpected character "${source[at]}" at position ${at + 1}.`);
  }
  tokens.push({ kind: 'end', at });
  return tokens;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly variables: Readonly<Record<string, number>>,
  ) {}

  parse(): number {
    if (this.peek().kind === 'end') throw new ExpressionError('The expression is empty.');
    const value = this.additive();
    const next = this.peek();
    if (next.kind !== 'end') throw this.unexpected(next);
    return value;
  }

  private additive(): number {
    let value = this.multiplicative();
    for (;;) {
      if (this.acceptOp('+')) value += this.multiplicative();
      else if (this.acceptOp('-')) value -= this.multiplicative();
      else return value;
    }
  }

  private multiplicative(): number {
    let value = this.unary();
    for (;;) {
      const token = this.peek();
      if (this.acceptOp('*')) value *= this.unary();
      else if (this.acceptOp('/')) {
        const divisor = this.unary();
        if (divisor === 0)
          throw new ExpressionError(`Division by zero at position ${token.at + 1}.`);
        value /= divisor;
      } else if (this.acceptOp('%')) {
        const divisor = this.unary();
        if (divisor === 0) throw new ExpressionError(`Modulo by zero at position ${token.at + 1}.`);
        value %= divisor;
      } else return value;
    }
  }

  private unary(): number {
    return this.nested(() => {
      if (this.acceptOp('-')) return -this.unary();
      if (this.acceptOp('+')) return this.unary();
      return this.power();
    });
  }

  private power(): number {
    const base = this.primary();
    if (this.acceptOp('^')) return base ** this.unary();
    return base;
  }

  private primary(): number {
    const token = this.next();
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.value === '(') {
      const value = this.nested(() => this.additive());
      this.expectOp(')');
      return value;
    }
    if (token.kind === 'name') return this.name(token);
    throw this.unexpected(token);
  }

  private name(token: Extract<Token, { kind: 'name' }>): number {
    const key = token.value.toLowerCase();
    const fn = FUNCTIONS[key];
    if (fn) return this.call(token.value, fn);
    if (key in CONSTANTS) return CONSTANTS[key];
    if (Object.prototype.hasOwnProperty.call(this.variables, token.value)) {
      return this.variables[token.value];
    }
    throw new ExpressionError(
      `Unknown name "${token.value}" at position ${token.at + 1}; give its value in variables.`,
    );
  }

  private call(name: string, fn: FunctionDefinition): number {
    this.expectOp('(');
    const args: number[] = [];
    if (!this.acceptOp(')')) {
      do args.push(this.nested(() => this.additive()));
      while (this.acceptOp(','));
      this.expectOp(')');
    }
    const variadic = fn.arity.includes(-1);
    if (variadic ? args.length === 0 : !fn.arity.includes(args.length)) {
      const expected = variadic
        ? 'at least 1 argument'
        : fn.arity.join(' or ') === '1'
          ? '1 argument'
          : `${fn.arity.join(' or ')} arguments`;
      throw new ExpressionError(`${name}() takes ${expected}, got ${args.length}.`);
    }
    return fn.apply(...args);
  }

  private nested(parse: () => number): number {
    if (++this.depth > MAX_DEPTH) throw new ExpressionError('The expression is nested too deeply.');
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private acceptOp(op: string): boolean {
    const token = this.peek();
    if (token.kind === 'op' && token.value === op) {
      this.index++;
      return true;
    }
    return false;
  }

  private expectOp(op: string): void {
    const token = this.peek();
    if (!this.acceptOp(op)) {
      throw token.kind === 'end'
        ? new ExpressionError(`Expected "${op}" at the end of the expression.`)
        : new ExpressionError(
            `Expected "${op}" at position ${token.at + 1}, found ${describe(token)}.`,
          );
    }
  }

  private unexpected(token: Token): ExpressionError {
    return token.kind === 'end'
      ? new ExpressionError('The expression ends too early.')
      : new ExpressionError(`Unexpected ${describe(token)} at position ${token.at + 1}.`);
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'number':
      return `number ${token.value}`;
    case 'name':
      return `"${token.value}"`;
    case 'op':
      return `"${token.value}"`;
    case 'end':
      return 'the end';
  }
}
