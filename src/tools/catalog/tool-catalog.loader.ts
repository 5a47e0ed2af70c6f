import * as fs from 'node:fs';
import * as path from 'node:path';
import { findRepoRoot } from '../../common/repo-root';
import { BUILTIN_TOOLKITS } from '../toolkits';
import { FORMATTED_NAME_PATTERN, formattedToolName } from './formatted-schema';
import { ToolkitDefinition } from './tool-specification.types';
import { parseToolkitFile, ToolkitSource } from './toolkit-file.schema';

/** Toolkit data files outside src/tools/toolkits/ (Agentline's), relative to the repository root. */
export const BUILTIN_TOOLKITS_DIR = path.join('catalog', 'toolkits');

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

export function builtinToolkitsDir(): string {
  return path.join(findRepoRoot(), BUILTIN_TOOLKITS_DIR);
}

/** The data files of the built-in toolkits (src/tools/toolkits/) and of catalog/toolkits/. */
function builtinToolkitSources(): ToolkitSource[] {
  return [
    ...BUILTIN_TOOLKITS.map(({ source }) => ({ ...source, file: displayPath(source.file) })),
    ...readToolkitSources(builtinToolkitsDir()),
  ];
}

/** Reads and validates the built-in toolkits plus, optionally, those of `extraDir`. */
export function loadToolkitDefinitions(extraDir?: string): ToolkitDefinition[] {
  const sources = builtinToolkitSources();
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
    const parsed = parseToolkitFile(source.data);
    if ('toolkit' in parsed) toolkits.push({ file: source.file, toolkit: parsed.toolkit });
    else issues.push(...parsed.issues.map((issue) => ({ file: source.file, ...issue })));
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
