import { ParameterDefinition, ValueSchemaDefinition } from '../catalog/tool-specification.types';
import { validateToolInput } from './tool-input.validator';

const param = (
  name: string,
  value_schema: ValueSchemaDefinition,
  required = false,
): ParameterDefinition => ({ name, description: name, required, value_schema });

const parameters = [
  param('s', { val_type: 'string' }, true),
  param('i', { val_type: 'integer' }),
  param('n', { val_type: 'number' }),
  param('b', { val_type: 'boolean' }),
  param('j', { val_type: 'json' }),
  param('a', { val_type: 'array', inner_val_type: 'integer' }),
  param('e', { val_type: 'string', enum: ['x', 'y'] }),
  param('ae', { val_type: 'array', inner_val_type: 'string', enum: ['p', 'q'] }),
  param('aj', { val_type: 'array', inner_val_type: 'json' }),
];

describe('validateToolInput, with the published JSON Schema', () => {
  it('accepts a valid input of every type and returns it', () => {
    const input = {
      s: 'text',
      i: -3,
      n: 2.5,
      b: false,
      j: { nested: [1, { deep: true }] },
      a: [1, 2],
      e: 'y',
      ae: ['q', 'p'],
      aj: [{}, { k: 1 }],
    };
    expect(validateToolInput({ parameters: parameters }, input)).toEqual({ input, errors: [] });
  });

  it('accepts integers as numbers and leaves out optional nulls', () => {
    expect(
      validateToolInput({ parameters: parameters }, { s: '', n: 4, i: null, j: null }),
    ).toEqual({
      input: { s: '', n: 4 },
      errors: [],
    });
  });

  it('names every missing, unknown and mistyped field', () => {
    const { errors } = validateToolInput(
      { parameters: parameters },
      {
        i: 1.5,
        n: '2',
        b: 'true',
        j: [1],
        a: [1, 'two', null, 3.5],
        e: 'z',
        ae: ['p', 'r'],
        aj: [[]],
        extra: 1,
      },
    );
    expect(errors).toEqual([
      { field: 'input.extra', message: 'unknown field extra' },
      { field: 'input.s', message: 's is required' },
      { field: 'input.i', message: 'must be an integer' },
      { field: 'input.n', message: 'must be a number' },
      { field: 'input.b', message: 'must be a boolean' },
      { field: 'input.j', message: 'must be a JSON object' },
      { field: 'input.a[1]', message: 'must be an integer' },
      { field: 'input.a[2]', message: 'must be an integer' },
      { field: 'input.a[3]', message: 'must be an integer' },
      { field: 'input.e', message: 'must be one of: x, y' },
      { field: 'input.ae[1]', message: 'must be one of: p, q' },
      { field: 'input.aj[0]', message: 'must be a JSON object' },
    ]);
  });

  it('refuses a required null, a non-array for an array and enum values of the wrong type', () => {
    const { errors } = validateToolInput({ parameters: parameters }, { s: null, a: 1, e: 1 });
    expect(errors).toEqual([
      { field: 'input.s', message: 's is required' },
      { field: 'input.a', message: 'must be an array' },
      { field: 'input.e', message: 'must be a string' },
    ]);
  });

  it('refuses integers beyond the safe range, which an unbounded (MCP) integer would let through', () => {
    const { errors } = validateToolInput(
      { parameters },
      { s: 'x', i: Number.MAX_SAFE_INTEGER + 1, a: [1, -1e300] },
    );
    expect(errors).toEqual([
      { field: 'input.i', message: 'must be at most 9007199254740991' },
      { field: 'input.a[1]', message: 'must be at least -9007199254740991' },
    ]);
  });

  it('does not treat inherited properties as parameters', () => {
    const { errors } = validateToolInput(
      { parameters: [param('toString', { val_type: 'string' }, true)] },
      {},
    );
    expect(errors).toEqual([{ field: 'input.toString', message: 'toString is required' }]);
  });

  describe('bounds', () => {
    const bounded = [
      param('text', { val_type: 'string', max_length: 5 }),
      param('owner', { val_type: 'string', pattern: '^[a-z]+$' }),
      param('count', { val_type: 'integer', minimum: 1, maximum: 10 }),
      param('ratio', { val_type: 'number', minimum: -0.5 }),
      param('tags', { val_type: 'array', inner_val_type: 'string', max_items: 2, max_length: 3 }),
      param('values', { val_type: 'array', inner_val_type: 'number', maximum: 100 }),
    ];

    it('accepts values on the bounds', () => {
      const input = {
        text: 'abcde',
        owner: 'abc',
        count: 10,
        ratio: -0.5,
        tags: ['abc', 'de'],
        values: [100, -1e9],
      };
      expect(validateToolInput({ parameters: bounded }, input)).toEqual({ input, errors: [] });
    });

    it('counts characters as code points: five emoji are five characters', () => {
      expect(validateToolInput({ parameters: bounded }, { text: '👍🏽👍🏽👍' }).errors).toEqual([]);
      expect(validateToolInput({ parameters: bounded }, { text: '👍🏽👍🏽👍🏽' }).errors).toEqual([
        { field: 'input.text', message: 'must be at most 5 characters long' },
      ]);
    });

    it('names each value beyond a bound', () => {
      const { errors } = validateToolInput(
        { parameters: bounded },
        {
          text: 'abcdef',
          owner: '..',
          count: 11,
          ratio: -1,
          tags: ['abcd'],
          values: [1, 101],
        },
      );
      expect(errors).toEqual([
        { field: 'input.text', message: 'must be at most 5 characters long' },
        { field: 'input.owner', message: 'must match the pattern ^[a-z]+$' },
        { field: 'input.count', message: 'must be at most 10' },
        { field: 'input.ratio', message: 'must be at least -0.5' },
        { field: 'input.tags[0]', message: 'must be at most 3 characters long' },
        { field: 'input.values[1]', message: 'must be at most 100' },
      ]);
      expect(validateToolInput({ parameters: bounded }, { count: 0 }).errors).toEqual([
        { field: 'input.count', message: 'must be at least 1' },
      ]);
    });

    it('refuses an array over max_items without looking at its elements', () => {
      expect(validateToolInput({ parameters: bounded }, { tags: ['a', 'b', 7] }).errors).toEqual([
        { field: 'input.tags', message: 'must have at most 2 items' },
      ]);
    });

    it('reports at most 20 wrong elements of one array', () => {
      const { errors } = validateToolInput(
        { parameters: bounded },
        { values: Array(1000).fill('x') },
      );
      expect(errors).toHaveLength(20);
      expect(errors[19]).toEqual({ field: 'input.values[19]', message: 'must be a number' });
    });
  });
});
