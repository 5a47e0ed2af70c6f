import { JsonValue } from '../../../common/json';
import { ToolExecutionError, ToolExecutor } from '../../execution/tool-executor';
import {
  optionalInteger,
  optionalNumbers,
  optionalObject,
  optionalStrings,
  requiredString,
} from '../tool-input.readers';
import {
  evaluateExpression,
  ExpressionError,
  isReservedName,
  roundTo,
  tidyNumber,
  VARIABLE_NAME,
} from './expression.evaluator';

export const MEASURES = [
  'count',
  'sum',
  'mean',
  'median',
  'min',
  'max',
  'stddev',
  'variance',
] as const;
type Measure = (typeof MEASURES)[number];

/** Math.Calculate: `{expression, variables?, precision?}` -> the number. */
export const calculate: ToolExecutor = {
  execute(input) {
    const expression = requiredString(input, 'expression');
    const variables = readVariables(optionalObject(input, 'variables') ?? {});
    const precision = optionalInteger(input, 'precision');
    if (precision !== undefined && (precision < 0 || precision > 15)) {
      throw new ToolExecutionError(`precision must be between 0 and 15, got ${precision}.`);
    }
    let value: number;
    try {
      value = evaluateExpression(expression, variables);
    } catch (error) {
      if (error instanceof ExpressionError) throw new ToolExecutionError(error.message);
      throw error;
    }
    return Promise.resolve(precision === undefined ? tidyNumber(value) : roundTo(value, precision));
  },
};

function readVariables(raw: Readonly<Record<string, JsonValue>>): Record<string, number> {
  const variables: Record<string, number> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!VARIABLE_NAME.test(name)) {
      throw new ToolExecutionError(`variables.${name}: a variable name is letters, digits and _.`);
    }
    if (isReservedName(name)) {
      throw new ToolExecutionError(`variables.${name}: "${name}" is a built-in name.`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new ToolExecutionError(`variables.${name} must be a number.`);
    }
    variables[name] = value;
  }
  return variables;
}

/**
 * Math.Statistics: `{values, measures?}` -> `{measure: value}` in the order asked (all by
 * default). Variance and standard deviation are of the population (divided by n): the list is
 * the whole data set being described.
 */
export const statistics: ToolExecutor = {
  execute(input) {
    const values = optionalNumbers(input, 'values') ?? [];
    if (values.length === 0) throw new ToolExecutionError('values must hold at least one number.');
    const measures = [...new Set((optionalStrings(input, 'measures') ?? MEASURES) as Measure[])];
    const result: Record<string, number> = {};
    for (const measure of measures) {
      const value = compute(measure, values);
      if (!Number.isFinite(value)) {
        throw new ToolExecutionError(`The ${measure} of these values is not a finite number.`);
      }
      result[measure] = measure === 'count' ? value : tidyNumber(value);
    }
    return Promise.resolve(result);
  },
};

function compute(measure: Measure, values: readonly number[]): number {
  switch (measure) {
    case 'count':
      return values.length;
    case 'sum':
      return sum(values);
    case 'mean':
      return mean(values);
    case 'median': {
      const sorted = [...values].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
    case 'min':
      return values.reduce((a, b) => Math.min(a, b));
    case 'max':
      return values.reduce((a, b) => Math.max(a, b));
    case 'variance':
      return variance(values);
    case 'stddev':
      return Math.sqrt(variance(values));
  }
}

/** Neumaier summation: a long list of decimals adds up without drifting. */
function sum(values: readonly number[]): number {
  let total = 0;
  let compensation = 0;
  for (const value of values) {
    const next = total + value;
    compensation +=
      Math.abs(total) >= Math.abs(value) ? total - next + value : value - next + total;
    total = next;
  }
  return total + compensation;
}

const mean = (values: readonly number[]): number => sum(values) / values.length;

function variance(values: readonly number[]): number {
  const average = mean(values);
  return sum(values.map((value) => (value - average) ** 2)) / values.length;
}

/** This file, as a worker module: the Math tools' cost grows with their input. */
export const MATH_WORKER_MODULE = __filename;
export const WORKER_TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  'Math.Calculate': calculate,
  'Math.Statistics': statistics,
};
