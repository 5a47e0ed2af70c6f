import { ValidationPipe } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import {
  IsInt,
  IsNotEmpty,
  IsString,
  Length,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { validatedQuickly } from './validation-fast-path';
import { IsOptionalNotNull } from './validation.decorators';

class FlatDto {
  @IsString() @Length(1, 5) name!: string;
  @IsOptionalNotNull() @Matches(/^\d+$/) digits?: string;
  @IsOptionalNotNull() @IsInt() count?: number;
}

/** Rules like a channel's: identifiers, digits, an optional secret of a minimum length. */
class IdsDto {
  @IsString() @IsNotEmpty() @MaxLength(200) @Matches(/^[A-Za-z0-9_-]+$/) agent_id!: string;
  @IsString() @Matches(/^\d{1,64}$/) number_id!: string;
  @IsOptionalNotNull() @IsString() @MinLength(8) secret?: string;
}

class TypedDto {
  @Type(() => Number) @IsInt() limit!: number;
}

/** A query's: a converted field that may be left out, beside a plain one. */
class PageDto {
  @IsOptionalNotNull() @Type(() => Number) @IsInt() limit?: number;
  @IsOptionalNotNull() @IsString() agent_id?: string;
}

class TransformedDto {
  @Transform(({ value }: { value: string }) => value.trim()) @IsString() name!: string;
}

class NestedDto {
  @ValidateNested() @Type(() => FlatDto) inner!: FlatDto;
}

/** What the global pipe would answer: the instance, or the errors' existence. */
async function throughThePipe(dto: new () => object, body: object) {
  const pipe = new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true });
  try {
    return { instance: await pipe.transform({ ...body }, { type: 'body', metatype: dto }) };
  } catch {
    return { refused: true };
  }
}

describe('validatedQuickly', () => {
  const cases: [new () => object, object][] = [
    [FlatDto, { name: 'abc' }],
    [FlatDto, { name: 'abc', digits: '123', count: 3 }],
    [FlatDto, { digits: '123', name: 'abc' }],
    [FlatDto, { name: '' }],
    [FlatDto, { name: 'abcdef' }],
    [FlatDto, { name: 'abc', digits: null }],
    [FlatDto, { name: 'abc', digits: 'x1' }],
    [FlatDto, { name: 'abc', count: 1.5 }],
    [FlatDto, {}],
    [PageDto, {}],
    [PageDto, { agent_id: 'a' }],
    [PageDto, { agent_id: 5 }],
    [IdsDto, { agent_id: 'a-1', number_id: '106' }],
    [IdsDto, { agent_id: 'a 1', number_id: '106' }],
    [IdsDto, { agent_id: 'a', number_id: 'x' }],
    [IdsDto, { agent_id: 'a', number_id: '1', secret: 'long-enough' }],
    [IdsDto, { agent_id: 'a', number_id: '1', secret: 'short' }],
    [IdsDto, { agent_id: 'a', number_id: '1', secret: null }],
  ];

  it.each(cases)(
    'confirms only what the pipe accepts, as the pipe builds it (%p, %j)',
    async (dto, body) => {
      const quick = validatedQuickly(dto, { ...body });
      const piped = await throughThePipe(dto, body);
      if (quick === undefined) {
        expect(piped.refused).toBe(true);
        return;
      }
      expect(piped.instance).toBeInstanceOf(dto);
      expect(quick).toBeInstanceOf(dto);
      expect(Object.entries(quick)).toEqual(Object.entries(piped.instance as object));
    },
  );

  it('confirms a valid body of primitives itself', () => {
    expect(validatedQuickly(FlatDto, { name: 'abc', count: 2 })).toBeInstanceOf(FlatDto);
    expect(validatedQuickly(PageDto, { agent_id: 'a' })).toBeInstanceOf(PageDto);
    expect(validatedQuickly(IdsDto, { agent_id: 'a-1', number_id: '106' })).toBeInstanceOf(IdsDto);
  });

  it('leaves to the pipe what class-transformer changes or nests', () => {
    expect(validatedQuickly(TypedDto, { limit: 5 })).toBeUndefined();
    expect(validatedQuickly(PageDto, { limit: '5' })).toBeUndefined();
    expect(validatedQuickly(TransformedDto, { name: 'a' })).toBeUndefined();
    expect(validatedQuickly(NestedDto, { inner: { name: 'a' } })).toBeUndefined();
    expect(validatedQuickly(FlatDto, { name: { nested: true } })).toBeUndefined();
  });
});
