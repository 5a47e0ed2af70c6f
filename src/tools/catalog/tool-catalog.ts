import { Injectable, Logger } from '@nestjs/common';
import { formattedToolName } from './formatted-schema';
import {
  loadToolkitDefinitions,
  ToolCatalogValidationError,
  validateToolkitSources,
} from './tool-catalog.loader';
import {
  DynamicToolkitDefinition,
  ResolvedAuthorizationRequirement,
  ResolvedRequirements,
  SecretRequirementDefinition,
  ToolDefinition,
  ToolkitDefinition,
  ToolkitInfo,
  ToolOrigin,
  ToolSpecificationDefinition,
} from './tool-specification.types';

export interface ToolCatalogFilter {
  /** Case-insensitive toolkit name. */
  toolkit?: string;
  offset: number;
  limit: number;
}

export interface ToolCatalogPage {
  items: ToolSpecificationDefinition[];
  /** Matches before pagination. */
  total: number;
}

/** What `setDynamicToolkits` kept and what it refused (the refusals are also logged). */
export interface DynamicToolkitsResult {
  accepted: string[];
  skipped: { toolkit: string; reason: string }[];
}

interface ResolvedToolkit {
  name: string;
  specs: readonly ToolSpecificationDefinition[];
}

/** Everything a lookup needs, rebuilt and swapped as a whole so readers never see half an update. */
interface CatalogView {
  specs: readonly ToolSpecificationDefinition[];
  byQualifiedName: ReadonlyMap<string, ToolSpecificationDefinition>;
  toolkitNames: readonly string[];
}

const BUILTIN_ORIGIN: ToolOrigin = { kind: 'builtin' };

/**
 * The tool specifications: the built-in toolkits, fixed at boot, plus dynamic toolkits that
 * sources (MCP servers) replace at run time. Provide it with a factory
 * (`useFactory: () => loadToolCatalog()`) so a bad built-in catalog fails the boot.
 */
@Injectable()
export class ToolCatalog {
  private readonly logger = new Logger(ToolCatalog.name);
  private readonly builtin: readonly ResolvedToolkit[];
  private readonly dynamic = new Map<string, readonly ResolvedToolkit[]>();
  /** Per source, what it last gave and what came of it: a refresh that lists the same is a no-op. */
  private readonly lastGiven = new Map<string, { given: string; result: DynamicToolkitsResult }>();
  private view: CatalogView;
  private changes = 0;

  constructor(toolkits: readonly ToolkitDefinition[]) {
    // Re-validate so hand-built definitions get the same guarantees (unique names) as files.
    const valid = validateToolkitSources(
      toolkits.map((data, i) => ({ file: `<toolkit #${i}>`, data })),
    );
    this.builtin = valid.map((toolkit) => resolveToolkit(toolkit, () => BUILTIN_ORIGIN));
    this.view = buildView(this.builtin);
  }

  /** Moves on whenever the catalog may have changed: what was derived from it is stale. */
  get generation(): number {
    return this.changes;
  }

  get size(): number {
    return this.view.specs.length;
  }

  list(filter: ToolCatalogFilter): ToolCatalogPage {
    const { specs } = this.view;
    const toolkit = filter.toolkit?.toLowerCase();
    const matching =
      toolkit === undefined ? specs : specs.filter((s) => s.toolkit.name.toLowerCase() === toolkit);
    const offset = Math.max(0, Math.floor(filter.offset));
    const limit = Math.max(0, Math.floor(filter.limit));
    return { items: matching.slice(offset, offset + limit), total: matching.length };
  }

  /** Accepts `Toolkit.Tool` or `Toolkit.Tool@<version>`; a version other than the toolkit's misses. */
  find(name: string): ToolSpecificationDefinition | undefined {
    const at = name.indexOf('@');
    const qualified = at === -1 ? name : name.slice(0, at);
    const spec = this.view.byQualifiedName.get(qualified.toLowerCase());
    if (spec === undefined || at === -1) return spec;
    return name.slice(at + 1) === spec.toolkit.version ? spec : undefined;
  }

  toolkits(): string[] {
    return [...this.view.toolkitNames];
  }

  /**
   * Replaces every toolkit of `source` (e.g. `mcp:everything`) at once; an empty list removes
   * them. Toolkits are validated like data files. One that is invalid, or whose toolkit or
   * function names clash with a built-in or another source's toolkit, is skipped with a warning:
   * whoever registered a name first keeps it, so a refresh never changes what a name means.
   */
  setDynamicToolkits(
    source: string,
    toolkits: readonly DynamicToolkitDefinition[],
  ): DynamicToolkitsResult {
    // An MCP server is listed again every few minutes: the same list keeps the catalog (and the
    // pages served from it) as they are.
    const given = JSON.stringify(toolkits);
    const last = this.lastGiven.get(source);
    if (last?.given === given) return last.result;
    const owners = new Map<string, string>();
    const functionNames = new Map<string, string>();
    const claim = (toolkit: ResolvedToolkit, owner: string) => {
      owners.set(toolkit.name.toLowerCase(), owner);
      for (const spec of toolkit.specs) {
        functionNames.set(formattedToolName(spec.qualifiedName).toLowerCase(), spec.qualifiedName);
      }
    };
    for (const toolkit of this.builtin) claim(toolkit, 'a built-in toolkit');
    for (const [other, resolved] of this.dynamic) {
      if (other !== source) for (const toolkit of resolved) claim(toolkit, `source "${other}"`);
    }

    const accepted: ResolvedToolkit[] = [];
    const skipped: DynamicToolkitsResult['skipped'] = [];
    for (const toolkit of toolkits) {
      const outcome = this.resolveDynamic(source, toolkit, owners, functionNames);
      if (typeof outcome === 'string') {
        skipped.push({ toolkit: toolkit.name, reason: outcome });
        continue;
      }
      claim(outcome, `source "${source}"`);
      accepted.push(outcome);
    }

    if (accepted.length > 0) this.dynamic.set(source, accepted);
    else this.dynamic.delete(source);
    this.view = buildView([...this.builtin, ...[...this.dynamic.values()].flat()]);
    this.changes++;
    for (const { toolkit, reason } of skipped) {
      this.logger.warn(`Skipped toolkit "${toolkit}" of source "${source}": ${reason}`);
    }
    const result = { accepted: accepted.map((t) => t.name), skipped };
    // What other sources gave may now resolve differently (a name this one freed): forget it.
    this.lastGiven.clear();
    this.lastGiven.set(source, { given, result });
    return result;
  }

  /** The resolved toolkit, or why it cannot join the catalog. */
  private resolveDynamic(
    source: string,
    toolkit: DynamicToolkitDefinition,
    owners: ReadonlyMap<string, string>,
    functionNames: ReadonlyMap<string, string>,
  ): ResolvedToolkit | string {
    let clean: ToolkitDefinition;
    try {
      // Origins are not part of the file format, so the validator would reject them.
      const data = { ...toolkit, tools: toolkit.tools.map(withoutOrigin) };
      [clean] = validateToolkitSources([{ file: source, data }]);
    } catch (err: unknown) {
      if (!(err instanceof ToolCatalogValidationError)) throw err;
      return err.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    }
    const owner = owners.get(clean.name.toLowerCase());
    if (owner !== undefined) return `the toolkit name is already used by ${owner}`;
    // Validation keeps the order of tools, so origins line up by index.
    const resolved = resolveToolkit(clean, (i) => toolkit.tools[i].origin ?? BUILTIN_ORIGIN);
    for (const spec of resolved.specs) {
      const clash = functionNames.get(formattedToolName(spec.qualifiedName).toLowerCase());
      if (clash !== undefined) {
        return `"${spec.qualifiedName}" and "${clash}" both format to the function name "${formattedToolName(spec.qualifiedName)}"`;
      }
    }
    return resolved;
  }
}

/** Loads the built-in toolkits (plus those of `dir`, if given); throws on invalid data. */
export function loadToolCatalog(dir?: string): ToolCatalog {
  return new ToolCatalog(loadToolkitDefinitions(dir));
}

function compareNames(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Tool requirements merge over the toolkit's: provider inherited, scopes and secrets added. */
function resolveRequirements(
  toolkit: ToolkitDefinition,
  tool: ToolDefinition,
): ResolvedRequirements {
  const kitAuth = toolkit.requirements?.authorization;
  const toolAuth = tool.requirements?.authorization;
  let authorization: ResolvedAuthorizationRequirement | undefined;
  if (kitAuth !== undefined || toolAuth !== undefined) {
    const providerId = toolAuth?.provider_id ?? kitAuth?.provider_id ?? '';
    // Toolkit scopes belong to the toolkit's provider; they do not carry over to an override.
    const kitScopes = kitAuth?.provider_id === providerId ? (kitAuth.oauth2?.scopes ?? []) : [];
    authorization = {
      provider_id: providerId,
      provider_type: toolAuth?.provider_type ?? kitAuth?.provider_type ?? 'oauth2',
      scopes: unique([...kitScopes, ...(toolAuth?.oauth2?.scopes ?? [])]),
    };
  }
  const secrets: SecretRequirementDefinition[] = [];
  for (const secret of [
    ...(toolkit.requirements?.secrets ?? []),
    ...(tool.requirements?.secrets ?? []),
  ]) {
    if (!secrets.some((s) => s.key === secret.key)) secrets.push({ key: secret.key });
  }
  return { ...(authorization && { authorization }), secrets };
}

function withoutOrigin(tool: DynamicToolkitDefinition['tools'][number]): ToolDefinition {
  const copy = { ...tool };
  delete copy.origin;
  return copy;
}

function resolveToolkit(
  toolkit: ToolkitDefinition,
  originOf: (toolIndex: number) => ToolOrigin,
): ResolvedToolkit {
  const specs = toolkit.tools
    .map((tool, i) => deepFreeze(resolveSpecification(toolkit, tool, originOf(i))))
    .sort((a, b) => compareNames(a.name, b.name));
  return { name: toolkit.name, specs };
}

function buildView(toolkits: readonly ResolvedToolkit[]): CatalogView {
  const sorted = [...toolkits].sort((a, b) => compareNames(a.name, b.name));
  const specs = sorted.flatMap((toolkit) => toolkit.specs);
  const byQualifiedName = new Map<string, ToolSpecificationDefinition>();
  for (const spec of specs) {
    byQualifiedName.set(spec.qualifiedName.toLowerCase(), spec);
  }
  return { specs, byQualifiedName, toolkitNames: sorted.map((t) => t.name) };
}

function resolveSpecification(
  toolkit: ToolkitDefinition,
  tool: ToolDefinition,
  origin: ToolOrigin,
): ToolSpecificationDefinition {
  const info: ToolkitInfo = {
    name: toolkit.name,
    description: toolkit.description,
    version: toolkit.version,
  };
  const qualifiedName = `${toolkit.name}.${tool.name}`;
  return {
    name: tool.name,
    qualifiedName,
    fullyQualifiedName: `${qualifiedName}@${toolkit.version}`,
    description: tool.description,
    parameters: tool.parameters.map((p) => ({ ...p, inferrable: p.inferrable ?? true })),
    output: tool.output,
    requirements: resolveRequirements(toolkit, tool),
    toolkit: info,
    // A copy: freezing must not reach into the caller's object.
    origin: { ...origin },
    ...(tool.annotations && { annotations: tool.annotations }),
  };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Specs are shared by every request; freezing turns an accidental mutation into an error. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
