import { getMetadataStorage } from 'class-validator';

/*
 * Every environment variable agentline reads is declared once, in the module that reads it, on a
 * class-validator class (docs/configuration.md):
 *
 *   @EnvGroup('Channels (Meta)')
 *   export class ChannelsEnvironment {
 *     @Env('Time-out of one send to the Graph API.')
 *     @IsOptional() @Transform(toInteger) @IsInt() @Min(100) @Max(120_000)
 *     GRAPH_API_TIMEOUT_MS: number = 10_000;
 *   }
 *
 * The validators check the value at boot; `@Env` says what it is for; the initializer is the
 * default. The type shown to operators is derived from the validators, so it cannot drift from
 * what is enforced. `npm run env:example` writes .env.example and README's configuration table
 * from these declarations, and a unit test fails when either is stale. readEnvironment refuses a
 * class with a validated property that has no `@Env`, or a class in no `@EnvGroup`, so an
 * undeclared variable stops every test that boots the app, with its name.
 *
 * To add a variable: a property with its validators, `@Env('…')` and its default, on the class of
 * the module that reads it (a new module's class also takes `@EnvGroup('Heading')`); then
 * `npm run env:example`, and commit .env.example and README.md with it. Never read process.env
 * by name (ESLint refuses it): the module's reader gets the whole environment.
 */

/** What `@Env` may add to a variable's description. */
export interface EnvOptions {
  /** Known only to the operator (keys, tokens): .env.example leaves it empty, whatever the default. */
  secret?: boolean;
  /** A typical value, shown beside the default (never a real secret). */
  example?: string;
  /** The default in words, when the initializer cannot say it (computed, or set by another variable). */
  default?: string;
  /** The type in words, when the validators do not say it well (a value parsed after validation). */
  type?: string;
}

/** One variable as operators read it in .env.example and README. */
export interface EnvVariable {
  name: string;
  description: string;
  type: string;
  /** The value used when the variable is unset, as one would write it; undefined: no value. */
  default?: string;
  /** True when `default` is words (`@Env`'s `default`), not a value. */
  defaultInWords: boolean;
  secret: boolean;
  example?: string;
}

/** A module's variables, under one heading. */
export interface EnvVariableGroup {
  title: string;
  variables: EnvVariable[];
}

/** Variables read by pattern (`OAUTH_<ID>_CLIENT_ID`), which no class property can name. */
export interface EnvPatternDeclaration {
  /** As shown: `OAUTH_<ID>_CLIENT_ID`. */
  name: string;
  description: string;
  type: string;
  default?: string;
  secret?: boolean;
  example?: string;
}

type EnvironmentClass = abstract new () => object;

interface Declared {
  description: string;
  options: EnvOptions;
}

const declaredProperties = new WeakMap<object, Map<string, Declared>>();
const groupOf = new WeakMap<object, string>();
/** Groups in the order their first member was loaded; each holds classes and patterns in order. */
const groups = new Map<string, (EnvironmentClass | EnvPatternDeclaration)[]>();

function inGroup(title: string, member: EnvironmentClass | EnvPatternDeclaration): void {
  const members = groups.get(title) ?? [];
  if (!members.includes(member)) members.push(member);
  groups.set(title, members);
}

/** Declares one variable: what it is for; its name is the property's, its default the initializer. */
export function Env(description: string, options: EnvOptions = {}): PropertyDecorator {
  return (prototype, property) => {
    const cls = prototype.constructor;
    const properties = declaredProperties.get(cls) ?? new Map<string, Declared>();
    properties.set(String(property), { description, options });
    declaredProperties.set(cls, properties);
  };
}

/** The heading a class's variables appear under; several classes may share one (toolkits). */
export function EnvGroup(title: string): ClassDecorator {
  return (cls) => {
    groupOf.set(cls, title);
    inGroup(title, cls as unknown as EnvironmentClass);
  };
}

/** Declares variables read by a name pattern rather than a class property (OAuth2 providers). */
export function declareEnvPattern(group: string, declaration: EnvPatternDeclaration): void {
  inGroup(group, declaration);
}

/** The properties class-validator checks on `cls`: the variables readEnvironment reads. */
function validatedProperties(cls: EnvironmentClass): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metadata.map((entry) => entry.propertyName))];
}

const checked = new WeakSet<object>();

/**
 * Throws (a programming error, not a configuration one) when `cls` reads a variable without
 * `@Env`, or is in no `@EnvGroup`: such a variable would be missing from .env.example and README.
 */
export function assertDeclared(cls: EnvironmentClass): void {
  if (checked.has(cls)) return;
  const properties = declaredProperties.get(cls);
  const missing = validatedProperties(cls).filter((name) => !properties?.has(name));
  if (missing.length > 0) {
    throw new Error(
      `${cls.name} reads ${missing.join(', ')} without @Env('description'): declare every variable (docs/configuration.md)`,
    );
  }
  if (!groupOf.has(cls)) {
    throw new Error(
      `${cls.name} has no @EnvGroup('heading'): its variables would be missing from .env.example (docs/configuration.md)`,
    );
  }
  checked.add(cls);
}

/** A default as an operator would write it; an empty list or no value is no default. */
function formatDefault(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.length > 0 ? value.join(',') : undefined;
  return String(value);
}

function range(min: number | undefined, max: number | undefined): string {
  const upper = max !== undefined && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  if (min !== undefined && upper !== undefined) return `, ${min} to ${upper}`;
  if (min !== undefined) return `, at least ${min}`;
  if (upper !== undefined) return `, at most ${upper}`;
  return '';
}

/** The type in words, from the validators that check it: what is enforced is what is shown. */
export function describeType(cls: EnvironmentClass, property: string): string {
  const metadata = getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .filter((entry) => entry.propertyName === property);
  const find = (name: string) => metadata.find((entry) => entry.name === name);
  const constraint = (name: string) => find(name)?.constraints?.[0] as number | undefined;
  const list = find('isArray') !== undefined || metadata.some((entry) => entry.each);
  const isIn = find('isIn')?.constraints?.[0] as readonly string[] | undefined;
  const minLength = constraint('minLength');
  const maxLength = constraint('maxLength');
  let item: string;
  if (find('isInt')) item = `integer${range(constraint('min'), constraint('max'))}`;
  else if (find('isBoolean')) item = 'boolean (true or false)';
  else if (isIn) item = `one of ${isIn.join(', ')}`;
  else if (find('isUrl')) item = list ? 'URLs' : 'URL';
  else item = list ? 'strings' : 'string';
  const lengths = [
    ...(minLength !== undefined && minLength > 1 ? [`at least ${minLength} characters`] : []),
    ...(maxLength !== undefined ? [`at most ${maxLength} characters`] : []),
  ].join(' and ');
  if (!list) return lengths ? `${item}, ${lengths}` : item;
  const most = constraint('arrayMaxSize');
  return [
    `comma-separated ${isIn ? `list, each ${item}` : item}`,
    ...(most !== undefined ? [`at most ${most}`] : []),
    ...(lengths ? [`each ${lengths}`] : []),
  ].join(', ');
}

/** The declared variables of one class, in declaration order, with their defaults. */
function variablesOf(cls: EnvironmentClass): EnvVariable[] {
  assertDeclared(cls);
  const defaults = new (cls as new () => Record<string, unknown>)();
  return [...(declaredProperties.get(cls) ?? new Map<string, Declared>())].map(
    ([name, { description, options }]) => ({
      name,
      description,
      type: options.type ?? describeType(cls, name),
      default: options.default ?? formatDefault(defaults[name]),
      defaultInWords: options.default !== undefined,
      secret: options.secret ?? false,
      ...(options.example !== undefined && { example: options.example }),
    }),
  );
}

function patternVariable(declaration: EnvPatternDeclaration): EnvVariable {
  return {
    name: declaration.name,
    description: declaration.description,
    type: declaration.type,
    default: declaration.default,
    defaultInWords: declaration.default !== undefined,
    secret: declaration.secret ?? false,
    ...(declaration.example !== undefined && { example: declaration.example }),
  };
}

/** The heading of the service's own variables (app-config.ts), shown before the modules'. */
export const SERVICE_ENV_GROUP = 'Service: HTTP, database, authentication, encryption, logs';

/**
 * Every declared variable: the service's first, then the modules' groups by title (not by load
 * order, which a new import would change), each in declaration order.
 */
export function declaredVariables(): EnvVariableGroup[] {
  const rank = (title: string) => (title === SERVICE_ENV_GROUP ? 0 : 1);
  const sorted = [...groups].sort(
    ([a], [b]) => rank(a) - rank(b) || a.localeCompare(b, 'en', { sensitivity: 'base' }),
  );
  const declared = sorted.map(([title, members]) => ({
    title,
    variables: members.flatMap((member) =>
      typeof member === 'function' ? variablesOf(member) : [patternVariable(member)],
    ),
  }));
  // Once means once: two modules reading one variable must agree on one declaration.
  const names = declared.flatMap((group) => group.variables.map((variable) => variable.name));
  const twice = names.filter((name, index) => names.indexOf(name) !== index);
  if (twice.length > 0) {
    throw new Error(`Declared more than once: ${[...new Set(twice)].join(', ')}`);
  }
  return declared;
}
