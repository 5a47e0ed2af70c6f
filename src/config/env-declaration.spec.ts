import { Transform } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
} from 'class-validator';
import {
  declaredVariables,
  declareEnvPattern,
  describeType,
  Env,
  EnvGroup,
} from './env-declaration';
import {
  README_BEGIN,
  README_END,
  renderConfigurationTable,
  renderEnvExample,
  withConfigurationTable,
} from './env-docs';
import { readEnvironment, toBoolean, toInteger, toList } from './environment';

// Only this file's declarations are in the registry: jest loads the modules afresh per file.
@EnvGroup('Zeta')
class ZetaEnvironment {
  @Env('How often it looks, in [docs/zeta.md](docs/zeta.md#how).')
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(60_000)
  ZETA_INTERVAL_MS: number = 1_000;
  @Env('The key.', { secret: true, default: 'generated' })
  @IsOptional()
  @IsString()
  ZETA_KEY?: string = 'never-shown';
  @Env('Where | to go.', { example: 'https://zeta.example.com' })
  @IsOptional()
  @IsUrl({ require_tld: false })
  ZETA_URL?: string;
}

@EnvGroup('Alpha')
class AlphaEnvironment {
  @Env('Words.')
  @IsOptional()
  @Transform(toList)
  @IsArray()
  @IsString({ each: true })
  ALPHA_WORDS: string[] = ['A', 'B'];
  @Env('On or off.')
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  ALPHA_ON: boolean = false;
  @Env('Kinds.')
  @IsOptional()
  @Transform(toList)
  @IsIn(['x', 'y'], { each: true })
  ALPHA_KINDS?: string[];
}
declareEnvPattern('Alpha', {
  name: 'ALPHA_<ID>_TOKEN',
  description: 'Per id.',
  type: 'string',
  secret: true,
});

describe('declared variables', () => {
  it('lists each group by title, its variables in declaration order, with types from the validators', () => {
    const groups = declaredVariables();
    expect(groups.map((group) => group.title)).toEqual(['Alpha', 'Zeta']);
    expect(
      groups[0].variables.map((variable) => [variable.name, variable.type, variable.default]),
    ).toEqual([
      ['ALPHA_WORDS', 'comma-separated strings', 'A,B'],
      ['ALPHA_ON', 'boolean (true or false)', 'false'],
      ['ALPHA_KINDS', 'comma-separated list, each one of x, y', undefined],
      ['ALPHA_<ID>_TOKEN', 'string', undefined],
    ]);
    expect(describeType(ZetaEnvironment, 'ZETA_INTERVAL_MS')).toBe('integer, 100 to 60000');
    expect(groups[1].variables[1]).toMatchObject({
      secret: true,
      default: 'generated',
      defaultInWords: true,
    });
  });

  it('refuses to read a class with a variable that has no @Env, or a class in no group', () => {
    class Undescribed {
      @Env('Described.') @IsOptional() @IsString() DESCRIBED?: string;
      @IsOptional() @IsString() FORGOTTEN?: string;
    }
    expect(() => readEnvironment(Undescribed, {})).toThrow(
      "Undescribed reads FORGOTTEN without @Env('description')",
    );
    class Ungrouped {
      @Env('Described.') @IsOptional() @IsString() LONELY?: string;
    }
    expect(() => readEnvironment(Ungrouped, {})).toThrow("Ungrouped has no @EnvGroup('heading')");
    expect(readEnvironment(AlphaEnvironment, { ALPHA_ON: 'yes' }).ALPHA_ON).toBe(true);
  });

  it('refuses one variable declared twice', () => {
    @EnvGroup('Omega')
    class OmegaEnvironment {
      @Env('Again.') @IsOptional() @IsString() ALPHA_ON?: string;
    }
    expect(readEnvironment(OmegaEnvironment, {})).toBeInstanceOf(OmegaEnvironment);
    expect(() => declaredVariables()).toThrow('Declared more than once: ALPHA_ON');
  });
});

describe('.env.example and README from the declarations', () => {
  const groups = [
    {
      title: 'Zeta',
      variables: [
        {
          name: 'ZETA_INTERVAL_MS',
          description: 'How often it looks, in [docs/zeta.md](docs/zeta.md#how)',
          type: 'integer, 100 to 60000',
          default: '1000',
          defaultInWords: false,
          secret: false,
        },
        {
          name: 'ZETA_KEY',
          description: 'The key.',
          type: 'string',
          default: 'generated',
          defaultInWords: true,
          secret: true,
        },
        {
          name: 'ZETA_URL',
          description: `Where | to go, ${'and on '.repeat(20)}and on.`,
          type: 'URL',
          defaultInWords: false,
          secret: false,
          example: 'https://zeta.example.com',
        },
      ],
    },
  ];

  it('writes every variable commented out with its default, a secret always empty, at most 100 columns', () => {
    const example = renderEnvExample(groups);
    expect(example).toContain(
      [
        '# How often it looks, in docs/zeta.md#how.',
        '# Type: integer, 100 to 60000; default: 1000',
        '# ZETA_INTERVAL_MS=1000',
      ].join('\n'),
    );
    expect(example).toContain(
      '# Type: string (secret: keep it out of version control); default: generated\n# ZETA_KEY=\n',
    );
    expect(example).toContain(
      '# Type: URL; default: unset; example: https://zeta.example.com\n# ZETA_URL=\n',
    );
    expect(example.split('\n').every((line) => line.length <= 100)).toBe(true);
  });

  it('writes a table per group between the markers, and refuses a README without them', () => {
    const table = renderConfigurationTable(groups);
    expect(table).toContain(
      '| `ZETA_INTERVAL_MS` | integer, 100 to 60000 | `1000` | How often it looks, in [docs/zeta.md](docs/zeta.md#how). |',
    );
    expect(table).toContain('| `ZETA_KEY` | string (secret) | generated | The key. |');
    expect(table).toContain('Where \\| to go');
    const readme = `# x\n\n${README_BEGIN}\nstale\n${README_END}\n\nafter\n`;
    expect(withConfigurationTable(readme, table)).toBe(
      `# x\n\n${README_BEGIN}\n\n${table}\n\n${README_END}\n\nafter\n`,
    );
    expect(() => withConfigurationTable('# x\n', table)).toThrow(/no generated configuration part/);
  });
});
