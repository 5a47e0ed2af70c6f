import * as fs from 'node:fs';
import * as path from 'node:path';
import { FORMATTED_NAME_PATTERN, formattedToolName } from './formatted-schema';
import {
  InnerValType,
  OAuth2RequirementDefinition,
  OUTPUT_MODES,
  OutputDefinition,
  OutputMode,
  ParameterDefinition,
  PROVIDER_TYPES,
  ProviderType,
  SecretRequirementDefinition,
  ToolAuthorizationDefinition,
  ToolDefinition,
  ToolkitAuthorizationDefinition,
  ToolkitDefinition,
  ToolkitRequirementsDefinition,
  ToolRequirementsDefinition,
  VAL_TYPES,
  VALUE_BOUNDS,
  ValType,
  ValueSchemaDefinition,
} from './tool-specification.types';

/** Relative to the repository root. */
export const BUILTIN_TOOLKITS_DIR = path.join('catalog', 'toolkits');

export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
// Semver 2.0 core with optional pre-release and build metadata.
const VERSION_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
// Secrets are usually injected as environment variables, so keep keys env-var shaped.
const SECRET_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROVIDER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export interface CatalogIssue {
  file: string;
  /** Location inside the file, e.g. `tools[1].parameters[0].value_schema.val_type`. */
  path: string;
  message: string;
}

/** Thrown when catalog data is unusable; carries every problem found, not just the first. */
export class ToolCatalogValidationError extends Error {
  constructor(readonly issues: readonly CatalogIssue[]) {
    super(
      `Invalid tool catalog (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n` +
        issues.map((i) => `  ${i.file}: ${i.path}: ${i.message}`).join('\n'),
    );
    this.name = 'ToolCatalogValidationError';
  }
}

export interface ToolkitSource {
  /** Used in error messages only. */
  file: string;
  data: unknown;
}

/** Walks up until a directory holding package.json: works from src/ (ts-jest) and dist/src/ (tsc). */
export function findRepoRoot(startDir: string = __dirname): string {
  let dir = path.resolve(startDir);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json found above ${startDir}`);
    dir = parent;
  }
}

export function builtinToolkitsDir(): string {
  return path.join(findRepoRoot(), BUILTIN_TOOLKITS_DIR);
}

/** Reads and validates the built-in toolkits plus, optionally, those of `extraDir`. */
export function loadToolkitDefinitions(extraDir?: string): ToolkitDefinition[] {
  const sources = readToolkitSources(builtinToolkitsDir());
  if (extraDir !== undefined) sources.push(...readToolkitSources(path.resolve(extraDir)));
  return validateToolkitSources(sources);
}

/** Parses every `*.json` file of `dir` (sorted, so load order is deterministic). */
export function readToolkitSources(dir: string): ToolkitSource[] {
  const shown = displayPath(dir);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new ToolCatalogValidationError([
      { file: shown, path: '(root)', message: 'toolkit directory does not exist' },
    ]);
  }
  const files = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => e.name)
    .sort();
  const issues: CatalogIssue[] = [];
  const sources: ToolkitSource[] = [];
  for (const name of files) {
    const full = path.join(dir, name);
    try {
      sources.push({ file: displayPath(full), data: JSON.parse(fs.readFileSync(full, 'utf8')) });
    } catch (err: unknown) {
      const reason = err instanceof Error ? err.message : String(err);
      issues.push({ file: displayPath(full), path: '(root)', message: `invalid JSON: ${reason}` });
    }
  }
  if (issues.length > 0) throw new ToolCatalogValidationError(issues);
  return sources;
}

/** Validates untrusted toolkit data and returns clean copies; throws listing every problem. */
export function validateToolkitSources(sources: readonly ToolkitSource[]): ToolkitDefinition[] {
  const issues: CatalogIssue[] = [];
  const toolkits: { file: string; toolkit: ToolkitDefinition }[] = [];
  for (const source of sources) {
    const toolkit = parseToolkit(new FileValidator(source.file, issues), source.data);
    if (toolkit) toolkits.push({ file: source.file, toolkit });
  }

  // Lookups are case-insensitive, so uniqueness must be too.
  const toolkitFiles = new Map<string, string>();
  const formattedNames = new Map<string, string>();
  for (const { file, toolkit } of toolkits) {
    const key = toolkit.name.toLowerCase();
    const previous = toolkitFiles.get(key);
    if (previous !== undefined) {
      issues.push({
        file,
        path: 'name',
        message: `duplicate toolkit name "${toolkit.name}" (already declared in ${previous})`,
      });
      continue;
    }
    toolkitFiles.set(key, file);
    toolkit.tools.forEach((tool, i) => {
      // LLM providers only accept [a-zA-Z0-9_-]{1,64}, and Toolkit_Tool must map back to one tool.
      const qualified = `${toolkit.name}.${tool.name}`;
      const formatted = formattedToolName(qualified);
      if (!FORMATTED_NAME_PATTERN.test(formatted)) {
        issues.push({
          file,
          path: `tools[${i}].name`,
          message: `function name "${formatted}" is longer than 64 characters`,
        });
      }
      const clash = formattedNames.get(formatted.toLowerCase());
      if (clash !== undefined) {
        issues.push({
          file,
          path: `tools[${i}].name`,
          message: `"${qualified}" and "${clash}" both format to the function name "${formatted}"`,
        });
      } else {
        formattedNames.set(formatted.toLowerCase(), qualified);
      }
    });
  }

  if (issues.length > 0) throw new ToolCatalogValidationError(issues);
  return toolkits.map((t) => t.toolkit);
}

function displayPath(file: string): string {
  try {
    const relative = path.relative(findRepoRoot(), file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  } catch {
    return file;
  }
}

// ---------------------------------------------------------------------------
// Strict structural validation
// ---------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

class FileValidator {
  constructor(
    readonly file: string,
    private readonly issues: CatalogIssue[],
  ) {}

  fail(at: string, message: string): undefined {
    this.issues.push({ file: this.file, path: at === '' ? '(root)' : at, message });
    return undefined;
  }
}

function join(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base === '' ? key : `${base}.${key}`;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/** Unknown keys are rejected so a typo ("requried") cannot silently change meaning. */
function readObject(
  v: FileValidator,
  value: unknown,
  at: string,
  allowed: readonly string[],
): JsonObject | undefined {
  if (!isObject(value)) return v.fail(at, `expected an object, got ${describe(value)}`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      v.fail(join(at, key), `unknown property "${key}" (allowed: ${allowed.join(', ')})`);
    }
  }
  return value;
}

function readString(
  v: FileValidator,
  obj: JsonObject,
  key: string,
  at: string,
  optional = false,
): string | undefined {
  const value = obj[key];
  const where = join(at, key);
  if (value === undefined) return optional ? undefined : v.fail(where, 'is required');
  if (typeof value !== 'string') return v.fail(where, `expected a string, got ${describe(value)}`);
  if (value.trim() === '') return v.fail(where, 'must not be empty');
  return value;
}

function readMatching(
  v: FileValidator,
  obj: JsonObject,
  key: string,
  at: string,
  pattern: RegExp,
  optional = false,
): string | undefined {
  const value = readString(v, obj, key, at, optional);
  if (value === undefined) return undefined;
  if (!pattern.test(value)) return v.fail(join(at, key), `"${value}" must match ${pattern}`);
  return value;
}

function readBoolean(
  v: FileValidator,
  obj: JsonObject,
  key: string,
  at: string,
  optional = false,
): boolean | undefined {
  const value = obj[key];
  const where = join(at, key);
  if (value === undefined) return optional ? undefined : v.fail(where, 'is required');
  if (typeof value !== 'boolean')
    return v.fail(where, `expected a boolean, got ${describe(value)}`);
  return value;
}

function readArray(
  v: FileValidator,
  obj: JsonObject,
  key: string,
  at: string,
  optional = false,
): unknown[] | undefined {
  const value = obj[key];
  const where = join(at, key);
  if (value === undefined) return optional ? undefined : v.fail(where, 'is required');
  if (!Array.isArray(value)) return v.fail(where, `expected an array, got ${describe(value)}`);
  return value;
}

/** Non-empty, duplicate-free list of non-empty strings. */
function readStringList(
  v: FileValidator,
  obj: JsonObject,
  key: string,
  at: string,
  what: string,
): string[] | undefined {
  const where = join(at, key);
  const raw = obj[key];
  if (!Array.isArray(raw) || !raw.every((s) => typeof s === 'string' && s.trim() !== '')) {
    return v.fail(where, `${what} must be an array of non-empty strings`);
  }
  const values = raw as string[];
  const duplicate = values.find((s, i) => values.indexOf(s) !== i);
  if (duplicate !== undefined) return v.fail(where, `duplicate ${what} value "${duplicate}"`);
  return [...values];
}

function findDuplicate(names: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of names) {
    const key = name.toLowerCase();
    if (seen.has(key)) return name;
    seen.add(key);
  }
  return undefined;
}

function parseToolkit(v: FileValidator, data: unknown): ToolkitDefinition | undefined {
  const obj = readObject(v, data, '', ['name', 'description', 'version', 'requirements', 'tools']);
  if (!obj) return undefined;
  const name = readMatching(v, obj, 'name', '', NAME_PATTERN);
  const description = readString(v, obj, 'description', '');
  const version = readString(v, obj, 'version', '');
  if (version !== undefined && !VERSION_PATTERN.test(version)) {
    v.fail('version', `"${version}" is not a semantic version such as 1.0.0 or 2.1.0-beta.1`);
  }
  const requirements =
    obj.requirements === undefined
      ? undefined
      : parseToolkitRequirements(v, obj.requirements, 'requirements');
  const hasProvider = requirements?.authorization !== undefined;

  const rawTools = readArray(v, obj, 'tools', '');
  if (rawTools?.length === 0) v.fail('tools', 'a toolkit must declare at least one tool');
  const tools = (rawTools ?? []).map((t, i) => parseTool(v, t, join('tools', i), hasProvider));
  const parsed = tools.filter((t): t is ToolDefinition => t !== undefined);
  const duplicate = findDuplicate(parsed.map((t) => t.name));
  if (duplicate !== undefined) v.fail('tools', `duplicate tool name "${duplicate}"`);

  if (
    name === undefined ||
    description === undefined ||
    version === undefined ||
    !VERSION_PATTERN.test(version) ||
    rawTools === undefined ||
    parsed.length !== tools.length ||
    parsed.length === 0 ||
    duplicate !== undefined ||
    (obj.requirements !== undefined && requirements === undefined)
  ) {
    return undefined;
  }
  return { name, description, version, ...(requirements && { requirements }), tools: parsed };
}

function parseToolkitRequirements(
  v: FileValidator,
  value: unknown,
  at: string,
): ToolkitRequirementsDefinition | undefined {
  const obj = readObject(v, value, at, ['authorization', 'secrets']);
  if (!obj) return undefined;
  let authorization: ToolkitAuthorizationDefinition | undefined;
  let ok = true;
  if (obj.authorization !== undefined) {
    const where = join(at, 'authorization');
    const auth = readObject(v, obj.authorization, where, [
      'provider_id',
      'provider_type',
      'oauth2',
    ]);
    const providerId = auth && readMatching(v, auth, 'provider_id', where, PROVIDER_ID_PATTERN);
    const providerType = auth && readProviderType(v, auth, where, false);
    const oauth2 = auth?.oauth2 === undefined ? undefined : parseOAuth2(v, auth.oauth2, where);
    if (!providerId || !providerType || (auth?.oauth2 !== undefined && !oauth2)) ok = false;
    else {
      authorization = {
        provider_id: providerId,
        provider_type: providerType,
        ...(oauth2 && { oauth2 }),
      };
    }
  }
  const secrets = obj.secrets === undefined ? undefined : parseSecrets(v, obj, at);
  if (!ok || (obj.secrets !== undefined && !secrets)) return undefined;
  return { ...(authorization && { authorization }), ...(secrets && { secrets }) };
}

function parseToolRequirements(
  v: FileValidator,
  value: unknown,
  at: string,
  toolkitHasProvider: boolean,
): ToolRequirementsDefinition | undefined {
  const obj = readObject(v, value, at, ['authorization', 'secrets']);
  if (!obj) return undefined;
  let authorization: ToolAuthorizationDefinition | undefined;
  let ok = true;
  if (obj.authorization !== undefined) {
    const where = join(at, 'authorization');
    const auth = readObject(v, obj.authorization, where, [
      'provider_id',
      'provider_type',
      'oauth2',
    ]);
    if (!auth) ok = false;
    else {
      const providerId = readMatching(v, auth, 'provider_id', where, PROVIDER_ID_PATTERN, true);
      const providerType = readProviderType(v, auth, where, true);
      const oauth2 = auth.oauth2 === undefined ? undefined : parseOAuth2(v, auth.oauth2, where);
      if (auth.provider_id === undefined && !toolkitHasProvider) {
        v.fail(
          join(where, 'provider_id'),
          'is required because the toolkit declares no authorization provider',
        );
        ok = false;
      }
      if (
        (auth.provider_id !== undefined && !providerId) ||
        (auth.provider_type !== undefined && !providerType) ||
        (auth.oauth2 !== undefined && !oauth2)
      ) {
        ok = false;
      }
      authorization = {
        ...(providerId && { provider_id: providerId }),
        ...(providerType && { provider_type: providerType }),
        ...(oauth2 && { oauth2 }),
      };
    }
  }
  const secrets = obj.secrets === undefined ? undefined : parseSecrets(v, obj, at);
  if (!ok || (obj.secrets !== undefined && !secrets)) return undefined;
  return { ...(authorization && { authorization }), ...(secrets && { secrets }) };
}

function readProviderType(
  v: FileValidator,
  auth: JsonObject,
  at: string,
  optional: boolean,
): ProviderType | undefined {
  const value = auth.provider_type;
  const where = join(at, 'provider_type');
  if (value === undefined) return optional ? undefined : v.fail(where, 'is required');
  if (!isOneOf(PROVIDER_TYPES, value)) {
    return v.fail(
      where,
      `unsupported provider_type ${describe(value)} (expected one of ${PROVIDER_TYPES.join(', ')})`,
    );
  }
  return value;
}

function parseOAuth2(
  v: FileValidator,
  value: unknown,
  at: string,
): OAuth2RequirementDefinition | undefined {
  const where = join(at, 'oauth2');
  const obj = readObject(v, value, where, ['scopes']);
  if (!obj) return undefined;
  if (obj.scopes === undefined) return v.fail(join(where, 'scopes'), 'is required');
  // An empty list is fine: the provider's default grant is enough for some tools.
  const scopes = readStringList(v, obj, 'scopes', where, 'scope');
  return scopes && { scopes };
}

function parseSecrets(
  v: FileValidator,
  obj: JsonObject,
  at: string,
): SecretRequirementDefinition[] | undefined {
  const raw = readArray(v, obj, 'secrets', at);
  if (!raw) return undefined;
  const secrets: SecretRequirementDefinition[] = [];
  raw.forEach((item, i) => {
    const where = join(join(at, 'secrets'), i);
    const secret = readObject(v, item, where, ['key']);
    const key = secret && readMatching(v, secret, 'key', where, SECRET_KEY_PATTERN);
    if (key) secrets.push({ key });
  });
  if (secrets.length !== raw.length) return undefined;
  const keys = secrets.map((s) => s.key);
  const duplicate = keys.find((k, i) => keys.indexOf(k) !== i);
  if (duplicate !== undefined) {
    return v.fail(join(at, 'secrets'), `duplicate secret key "${duplicate}"`);
  }
  return secrets;
}

function parseTool(
  v: FileValidator,
  value: unknown,
  at: string,
  toolkitHasProvider: boolean,
): ToolDefinition | undefined {
  const obj = readObject(v, value, at, [
    'name',
    'description',
    'parameters',
    'output',
    'requirements',
  ]);
  if (!obj) return undefined;
  const name = readMatching(v, obj, 'name', at, NAME_PATTERN);
  const description = readString(v, obj, 'description', at);
  const rawParameters = readArray(v, obj, 'parameters', at);
  const parameters = (rawParameters ?? []).map((p, i) =>
    parseParameter(v, p, join(join(at, 'parameters'), i)),
  );
  const parsed = parameters.filter((p): p is ParameterDefinition => p !== undefined);
  const duplicate = findDuplicate(parsed.map((p) => p.name));
  if (duplicate !== undefined) {
    v.fail(join(at, 'parameters'), `duplicate parameter name "${duplicate}"`);
  }
  const output =
    obj.output === undefined
      ? v.fail(join(at, 'output'), 'is required')
      : parseOutput(v, obj.output, join(at, 'output'));
  const requirements =
    obj.requirements === undefined
      ? undefined
      : parseToolRequirements(v, obj.requirements, join(at, 'requirements'), toolkitHasProvider);

  if (
    name === undefined ||
    description === undefined ||
    rawParameters === undefined ||
    parsed.length !== parameters.length ||
    duplicate !== undefined ||
    output === undefined ||
    (obj.requirements !== undefined && requirements === undefined)
  ) {
    return undefined;
  }
  return { name, description, parameters: parsed, output, ...(requirements && { requirements }) };
}

function parseParameter(
  v: FileValidator,
  value: unknown,
  at: string,
): ParameterDefinition | undefined {
  const obj = readObject(v, value, at, [
    'name',
    'description',
    'required',
    'inferrable',
    'value_schema',
  ]);
  if (!obj) return undefined;
  const name = readMatching(v, obj, 'name', at, NAME_PATTERN);
  const description = readString(v, obj, 'description', at);
  const required = readBoolean(v, obj, 'required', at);
  const inferrable = readBoolean(v, obj, 'inferrable', at, true);
  const valueSchema =
    obj.value_schema === undefined
      ? v.fail(join(at, 'value_schema'), 'is required')
      : parseValueSchema(v, obj.value_schema, join(at, 'value_schema'));
  if (
    name === undefined ||
    description === undefined ||
    required === undefined ||
    (obj.inferrable !== undefined && inferrable === undefined) ||
    valueSchema === undefined
  ) {
    return undefined;
  }
  return {
    name,
    description,
    required,
    ...(inferrable !== undefined && { inferrable }),
    value_schema: valueSchema,
  };
}

function parseOutput(v: FileValidator, value: unknown, at: string): OutputDefinition | undefined {
  const obj = readObject(v, value, at, ['description', 'available_modes', 'value_schema']);
  if (!obj) return undefined;
  const description = readString(v, obj, 'description', at);
  const rawModes = readArray(v, obj, 'available_modes', at);
  let modes: OutputMode[] | undefined;
  if (rawModes) {
    const where = join(at, 'available_modes');
    if (rawModes.length === 0) v.fail(where, 'must list at least one mode');
    else if (!rawModes.every((m) => isOneOf(OUTPUT_MODES, m))) {
      v.fail(where, `modes must be among ${OUTPUT_MODES.join(', ')}`);
    } else if (new Set(rawModes).size !== rawModes.length) v.fail(where, 'duplicate mode');
    else modes = rawModes.filter((m): m is OutputMode => isOneOf(OUTPUT_MODES, m));
  }
  const valueSchema =
    obj.value_schema === undefined
      ? v.fail(join(at, 'value_schema'), 'is required')
      : parseValueSchema(v, obj.value_schema, join(at, 'value_schema'));
  if (description === undefined || modes === undefined || valueSchema === undefined) {
    return undefined;
  }
  return { description, available_modes: modes, value_schema: valueSchema };
}

const INNER_VAL_TYPES: readonly InnerValType[] = VAL_TYPES.filter(
  (t): t is InnerValType => t !== 'array',
);

function parseValueSchema(
  v: FileValidator,
  value: unknown,
  at: string,
): ValueSchemaDefinition | undefined {
  const obj = readObject(v, value, at, ['val_type', 'inner_val_type', 'enum', ...VALUE_BOUNDS]);
  if (!obj) return undefined;
  let ok = true;

  let valType: ValType | undefined;
  if (obj.val_type === undefined) {
    ok = false;
    v.fail(join(at, 'val_type'), 'is required');
  } else if (!isOneOf(VAL_TYPES, obj.val_type)) {
    ok = false;
    v.fail(
      join(at, 'val_type'),
      `unknown val_type ${describe(obj.val_type)} (expected one of ${VAL_TYPES.join(', ')})`,
    );
  } else valType = obj.val_type;

  let inner: InnerValType | undefined;
  const innerAt = join(at, 'inner_val_type');
  if (obj.inner_val_type !== undefined) {
    if (valType !== undefined && valType !== 'array') {
      ok = false;
      v.fail(innerAt, `is only allowed when val_type is "array" (got "${valType}")`);
    } else if (!isOneOf(INNER_VAL_TYPES, obj.inner_val_type)) {
      ok = false;
      v.fail(
        innerAt,
        `unknown inner_val_type ${describe(obj.inner_val_type)} (expected one of ${INNER_VAL_TYPES.join(', ')})`,
      );
    } else inner = obj.inner_val_type;
  } else if (valType === 'array') {
    ok = false;
    v.fail(innerAt, 'is required when val_type is "array"');
  }

  let enumValues: string[] | undefined;
  if (obj.enum !== undefined) {
    const enumAt = join(at, 'enum');
    if (Array.isArray(obj.enum) && obj.enum.length === 0) {
      ok = false;
      v.fail(enumAt, 'enum must list at least one value');
    } else {
      enumValues = readStringList(v, obj, 'enum', at, 'enum');
      if (!enumValues) ok = false;
    }
    const elementType = valType === 'array' ? inner : valType;
    if (valType !== undefined && elementType !== undefined && elementType !== 'string') {
      ok = false;
      v.fail(enumAt, `enum is only allowed on string values or arrays of strings`);
    }
  }

  const elementType = valType === 'array' ? inner : valType;
  const bounds = parseValueBounds(v, obj, at, valType, elementType);
  if (!ok || valType === undefined || bounds === undefined) return undefined;
  return {
    val_type: valType,
    ...(inner && { inner_val_type: inner }),
    ...(enumValues && { enum: enumValues }),
    ...bounds,
  };
}

/** max_length and pattern bound strings, minimum and maximum numbers, max_items arrays. */
function parseValueBounds(
  v: FileValidator,
  obj: JsonObject,
  at: string,
  valType: ValType | undefined,
  elementType: InnerValType | undefined,
): Pick<ValueSchemaDefinition, (typeof VALUE_BOUNDS)[number]> | undefined {
  let ok = true;
  const fail = (key: string, message: string) => {
    ok = false;
    v.fail(join(at, key), message);
  };
  const isNumeric = elementType === 'integer' || elementType === 'number';
  const applies: Record<(typeof VALUE_BOUNDS)[number], boolean> = {
    max_length: elementType === 'string',
    pattern: elementType === 'string',
    minimum: isNumeric,
    maximum: isNumeric,
    max_items: valType === 'array',
  };
  const bounds: Pick<ValueSchemaDefinition, (typeof VALUE_BOUNDS)[number]> = {};
  for (const key of VALUE_BOUNDS) {
    const raw = obj[key];
    if (raw === undefined) continue;
    if (valType !== undefined && !applies[key]) {
      fail(
        key,
        `${key} does not apply to ${valType === 'array' ? `an array of ${elementType}` : valType} values`,
      );
    } else if (key === 'pattern') {
      if (typeof raw !== 'string') fail(key, `expected a string, got ${describe(raw)}`);
      else {
        try {
          new RegExp(raw, 'u');
          bounds.pattern = raw;
        } catch (error) {
          fail(
            key,
            `not a regular expression: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    } else if (key === 'minimum' || key === 'maximum') {
      if (typeof raw !== 'number' || !Number.isFinite(raw))
        fail(key, `expected a number, got ${describe(raw)}`);
      else bounds[key] = raw;
    } else if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0) {
      fail(key, `expected a non-negative integer, got ${describe(raw)}`);
    } else bounds[key] = raw;
  }
  if (
    bounds.minimum !== undefined &&
    bounds.maximum !== undefined &&
    bounds.minimum > bounds.maximum
  ) {
    fail('minimum', `minimum ${bounds.minimum} is above maximum ${bounds.maximum}`);
  }
  return ok ? bounds : undefined;
}
