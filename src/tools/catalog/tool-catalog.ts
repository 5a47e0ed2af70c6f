import { Injectable } from '@nestjs/common';
import { formattedToolName } from './formatted-schema';
import { loadToolkitDefinitions, validateToolkitSources } from './tool-catalog.loader';
import {
  ResolvedAuthorizationRequirement,
  ResolvedRequirements,
  SecretRequirementDefinition,
  ToolDefinition,
  ToolkitDefinition,
  ToolkitInfo,
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

/**
 * The immutable set of built-in tool specifications. Provide it with a factory
 * (`useFactory: () => loadToolCatalog()`) so a bad catalog fails the boot.
 */
@Injectable()
export class ToolCatalog {
  private readonly specs: readonly ToolSpecificationDefinition[];
  private readonly byQualifiedName = new Map<string, ToolSpecificationDefinition>();
  private readonly byFormattedName = new Map<string, ToolSpecificationDefinition>();
  private readonly toolkitNames: readonly string[];

  constructor(toolkits: readonly ToolkitDefinition[]) {
    // Re-validate so hand-built definitions get the same guarantees (unique names) as files.
    const valid = validateToolkitSources(
      toolkits.map((data, i) => ({ file: `<toolkit #${i}>`, data })),
    );
    const sortedToolkits = [...valid].sort((a, b) => compareNames(a.name, b.name));
    this.toolkitNames = sortedToolkits.map((t) => t.name);
    this.specs = sortedToolkits.flatMap((toolkit) =>
      [...toolkit.tools]
        .sort((a, b) => compareNames(a.name, b.name))
        .map((tool) => deepFreeze(resolveSpecification(toolkit, tool))),
    );
    for (const spec of this.specs) {
      this.byQualifiedName.set(spec.qualifiedName.toLowerCase(), spec);
      this.byFormattedName.set(formattedToolName(spec.qualifiedName).toLowerCase(), spec);
    }
  }

  get size(): number {
    return this.specs.length;
  }

  list(filter: ToolCatalogFilter): ToolCatalogPage {
    const toolkit = filter.toolkit?.toLowerCase();
    const matching =
      toolkit === undefined
        ? this.specs
        : this.specs.filter((s) => s.toolkit.name.toLowerCase() === toolkit);
    const offset = Math.max(0, Math.floor(filter.offset));
    const limit = Math.max(0, Math.floor(filter.limit));
    return { items: matching.slice(offset, offset + limit), total: matching.length };
  }

  /** Accepts `Toolkit.Tool` or `Toolkit.Tool@<version>`; a version other than the toolkit's misses. */
  find(name: string): ToolSpecificationDefinition | undefined {
    const at = name.indexOf('@');
    const qualified = at === -1 ? name : name.slice(0, at);
    const spec = this.byQualifiedName.get(qualified.toLowerCase());
    if (spec === undefined || at === -1) return spec;
    return name.slice(at + 1) === spec.toolkit.version ? spec : undefined;
  }

  /** Maps an LLM function name (`Toolkit_Tool`, see formatted-schema) back to its tool. */
  findByFormattedName(name: string): ToolSpecificationDefinition | undefined {
    return this.byFormattedName.get(name.toLowerCase());
  }

  toolkits(): string[] {
    return [...this.toolkitNames];
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

function resolveSpecification(
  toolkit: ToolkitDefinition,
  tool: ToolDefinition,
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
