import { basename, dirname, join } from 'node:path';
import { loadToolCatalog, ToolCatalog } from '../../src/tools/catalog/tool-catalog';
import type { ResolvedRequirements } from '../../src/tools/catalog/tool-specification.types';
import { BUILTIN_TOOLKITS } from '../../src/tools/toolkits';
import type { ToolkitTesting } from '../../src/tools/toolkits/builtin-toolkit.testing';

/**
 * Each built-in toolkit's test data, read from its own folder: `<folder>/<folder>.testing.ts`,
 * exporting `testing` (see src/tools/toolkits/builtin-toolkit.testing.ts). Found by that name from
 * BUILTIN_TOOLKITS, so a new toolkit needs no line here; one without the file stops the run, named.
 */
export const TOOLKITS_TESTING: readonly (ToolkitTesting & { name: string })[] =
  BUILTIN_TOOLKITS.map((toolkit) => {
    const folder = dirname(toolkit.source.file);
    const file = join(folder, `${basename(folder)}.testing`);
    let testing: ToolkitTesting | undefined;
    try {
      // A path known only at run time, by the folder's convention.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      testing = (require(file) as { testing?: ToolkitTesting }).testing;
    } catch (error) {
      throw new Error(`Toolkit ${toolkit.name}: cannot load ${file}.ts: ${String(error)}`);
    }
    if (!testing) throw new Error(`Toolkit ${toolkit.name}: ${file}.ts exports no \`testing\``);
    return { name: toolkit.name, ...testing };
  });

/**
 * The provider base URL variables of the built-in toolkits: those of the toolkits in `fakes` point
 * at their fake (with the path of the real base URL), the others at `elsewhere` if given (else
 * they keep their defaults).
 */
export function providerUrls(
  fakes: Readonly<Record<string, string>>,
  elsewhere?: string,
): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const { name, provider } of TOOLKITS_TESTING) {
    if (!provider) continue;
    const fake = fakes[name];
    if (fake !== undefined) urls[provider.urlVariable] = `${fake}${provider.path ?? ''}`;
    else if (elsewhere !== undefined) urls[provider.urlVariable] = elsewhere;
  }
  return urls;
}

/** The worst input of every tool of the built-in toolkits, by qualified name. */
export const builtinWorstInputs = (): Record<string, () => Record<string, unknown>> =>
  Object.assign({}, ...TOOLKITS_TESTING.map((toolkit) => toolkit.worstInputs));

let catalog: ToolCatalog | undefined;

/** What a catalog tool needs to run (its secrets, its OAuth2 provider and scopes). */
export function requirementsOf(qualifiedName: string): ResolvedRequirements {
  catalog ??= loadToolCatalog();
  const spec = catalog.find(qualifiedName);
  if (!spec) throw new Error(`No tool ${qualifiedName} in the catalog`);
  return spec.requirements;
}

/** The OAuth2 provider and scopes a catalog tool asks for; throws for a tool without. */
export function oauth2Of(qualifiedName: string): { provider_id: string; scopes: string[] } {
  const { authorization } = requirementsOf(qualifiedName);
  if (!authorization) throw new Error(`${qualifiedName} needs no OAuth2 authorization`);
  return authorization;
}
