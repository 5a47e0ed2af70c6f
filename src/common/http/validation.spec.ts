import { ArgumentMetadata } from '@nestjs/common';
import { IsString } from 'class-validator';
import { ProblemException } from './problem';
import { StrictValidationPipe } from './validation';
import { IsOptionalNotNull } from './validation.decorators';

class SampleDto {
  @IsString() name!: string;
  @IsOptionalNotNull() @IsString() nickname?: string;
}

const asBody: ArgumentMetadata = { type: 'body', metatype: SampleDto };

async function problemOf(
  work: Promise<unknown>,
): Promise<ReturnType<ProblemException['toProblem']>> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ProblemException) return error.toProblem();
    throw error;
  }
  throw new Error('expected a ProblemException');
}

describe('StrictValidationPipe', () => {
  const pipe = new StrictValidationPipe();

  it('refuses null in an optional field and accepts it left out', async () => {
    const problem = await problemOf(pipe.transform({ name: 'a', nickname: null }, asBody));
    expect(problem.errors).toEqual([
      expect.objectContaining({ field: 'nickname', message: 'nickname must be a string' }),
    ]);
    await expect(pipe.transform({ name: 'a' }, asBody)).resolves.toEqual({ name: 'a' });
  });

  it('reports unknown fields with the other failures, at most 50, with the total', async () => {
    const body: Record<string, unknown> = { name: 5 };
    for (let i = 0; i < 100; i++) body[`k${i}`] = i;
    const problem = await problemOf(pipe.transform(body, asBody));
    expect(problem.errors_total).toBe(101);
    expect(problem.errors).toHaveLength(50);
    expect(problem.errors?.[0]).toEqual({ field: 'name', message: 'name must be a string' });
    expect(problem.errors?.[1]).toEqual({ field: 'k0', message: 'unknown field k0' });
  });

  it('refuses NUL in a body, a query value or a path parameter, naming it', async () => {
    expect((await problemOf(pipe.transform({ name: 'a\u0000' }, asBody))).errors).toEqual([
      { field: 'name', message: 'must not contain NUL characters (\\u0000)' },
    ]);
    const param: ArgumentMetadata = { type: 'param', data: 'id', metatype: String };
    expect((await problemOf(pipe.transform('x\u0000', param))).errors?.[0].field).toBe('id');
    await expect(pipe.transform('x', param)).resolves.toBe('x');
  });
});
