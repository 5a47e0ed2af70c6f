import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { NAME_PATTERN } from '../catalog/toolkit-file.schema';
import { strictObject, zodProblems } from '../zod-issues';

/**
 * The MCP servers an operator configures in `MCP_SERVERS` (a JSON array) or `MCP_SERVERS_FILE`
 * (a file holding the same array); the format is described in docs/toolkits.md.
 * `env` and `headers` values are secrets: no message here ever repeats them, nor a URL, which
 * may carry credentials.
 */
interface McpServerConfigBase {
  /** Stable id chosen by the operator; tools remember it as their origin. */
  id: string;
  /** Toolkit name to use instead of the one derived from the server's own name. */
  toolkit?: string;
  /** Time-out of initialize and tools/list (default 30 s); caps tool calls below the caller's. */
  timeoutMs?: number;
}

export interface McpStdioServerConfig extends McpServerConfigBase {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface McpHttpServerConfig extends McpServerConfigBase {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export interface McpServersSource {
  MCP_SERVERS?: string;
  MCP_SERVERS_FILE?: string;
}

export interface McpServersReading {
  servers: McpServerConfig[];
  /** Every problem found, each naming its place (`MCP_SERVERS[1].url`), never a secret. */
  errors: string[];
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
// Toolkit names end up in `Toolkit_Tool` function names, which LLM providers cap at 64 characters.
const MAX_TOOLKIT_NAME_LENGTH = 40;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 3_600_000;

/** Messages that never quote a value: `env`, `headers` and URLs may hold secrets. */
const messages: z.core.$ZodErrorMap = (issue) => {
  if (issue.input === undefined && issue.code !== 'custom') return 'is required';
  if (issue.code === 'invalid_type')
    return `expected ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}`;
  return undefined;
};

const nonEmptyString = z
  .string({
    error: (issue) => (issue.input === undefined ? undefined : 'must be a non-empty string'),
  })
  .refine((value) => value.trim() !== '', { error: 'must be a non-empty string' });

/** A map of names to string values whose values are never echoed. */
const secretMap = z
  .record(z.string(), z.unknown(), { error: 'must be an object of string values' })
  .superRefine((map, ctx) => {
    const bad = Object.keys(map).filter((name) => typeof map[name] !== 'string');
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `values must be strings (see ${bad.join(', ')})` });
    }
  })
  .transform((map) => map as Record<string, string>);

const httpUrl = nonEmptyString.superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL' });
  }
});

const serverEntry = strictObject({
  id: nonEmptyString.regex(ID_PATTERN, {
    error: (issue) => `"${String(issue.input)}" must match ${ID_PATTERN}`,
  }),
  command: nonEmptyString.optional(),
  args: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  env: secretMap.optional(),
  cwd: nonEmptyString.optional(),
  url: httpUrl.optional(),
  headers: secretMap.optional(),
  toolkit: nonEmptyString
    .regex(NAME_PATTERN, {
      error: (issue) => `"${String(issue.input)}" must match ${NAME_PATTERN}`,
      abort: true,
    })
    .max(MAX_TOOLKIT_NAME_LENGTH, {
      error: `must be at most ${MAX_TOOLKIT_NAME_LENGTH} characters`,
    })
    .optional(),
  timeout_ms: z
    .int({ error: `must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}` })
    .min(MIN_TIMEOUT_MS, {
      error: `must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`,
    })
    .max(MAX_TIMEOUT_MS, {
      error: `must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`,
    })
    .optional(),
})
  .superRefine((entry, ctx) => {
    const stdio = entry.command !== undefined;
    if (stdio === (entry.url !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'set exactly one of "command" (stdio) and "url" (Streamable HTTP)',
      });
      return;
    }
    for (const key of stdio ? (['headers'] as const) : (['args', 'env', 'cwd'] as const)) {
      if (entry[key] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `does not apply to ${stdio ? 'a stdio' : 'an HTTP'} server`,
        });
      }
    }
  })
  .transform(({ id, toolkit, timeout_ms: timeoutMs, ...entry }): McpServerConfig => {
    const base = {
      id,
      ...(toolkit !== undefined && { toolkit }),
      ...(timeoutMs !== undefined && { timeoutMs }),
    };
    if (entry.url !== undefined)
      return { ...base, transport: 'http', url: entry.url, headers: entry.headers ?? {} };
    return {
      ...base,
      transport: 'stdio',
      command: entry.command ?? '',
      args: entry.args ?? [],
      env: entry.env ?? {},
      ...(entry.cwd !== undefined && { cwd: entry.cwd }),
    };
  });

/** Reads and validates the configured MCP servers; none configured is an empty list. */
export function readMcpServers(source: McpServersSource): McpServersReading {
  const inline = source.MCP_SERVERS?.trim() ? source.MCP_SERVERS : undefined;
  const file = source.MCP_SERVERS_FILE?.trim() ? source.MCP_SERVERS_FILE : undefined;
  if (inline !== undefined && file !== undefined) {
    return failed('set only one of MCP_SERVERS and MCP_SERVERS_FILE');
  }
  if (inline !== undefined) return validateMcpServers(inline, 'MCP_SERVERS', 'MCP_SERVERS');
  if (file === undefined) return { servers: [], errors: [] };
  let text: string;
  try {
    text = readFileSync(resolve(file), 'utf8');
  } catch (err: unknown) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return failed(`MCP_SERVERS_FILE: cannot read ${file} (${code})`);
  }
  return validateMcpServers(text, `MCP_SERVERS_FILE (${file})`, 'MCP_SERVERS_FILE');
}

function failed(error: string): McpServersReading {
  return { servers: [], errors: [error] };
}

/** Parses and validates the JSON text; `label` prefixes every problem, e.g. `MCP_SERVERS[1].url`. */
function validateMcpServers(text: string, what: string, label: string): McpServersReading {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err: unknown) {
    // The parser's message quotes the text around the error, which may be a secret.
    const position = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    return failed(
      `${what} is not valid JSON${position === undefined ? '' : ` (at position ${position})`}`,
    );
  }
  if (!Array.isArray(data)) return failed(`${what} must be a JSON array of server objects`);
  const errors: string[] = [];
  const servers: McpServerConfig[] = [];
  const ids = new Map<string, number>();
  const toolkits = new Map<string, number>();
  data.forEach((entry: unknown, index) => {
    const at = `${label}[${index}]`;
    const parsed = serverEntry.safeParse(entry, { error: messages });
    if (!parsed.success) {
      for (const problem of zodProblems(parsed.error)) {
        errors.push(
          `${problem.path === '(root)' ? at : `${at}.${problem.path}`}: ${problem.message}`,
        );
      }
      return;
    }
    const server = parsed.data;
    const previous = ids.get(server.id.toLowerCase());
    if (previous !== undefined) {
      errors.push(`${at}.id: "${server.id}" is already used by ${label}[${previous}]`);
      return;
    }
    ids.set(server.id.toLowerCase(), index);
    if (server.toolkit !== undefined) {
      const other = toolkits.get(server.toolkit.toLowerCase());
      if (other !== undefined) {
        errors.push(`${at}.toolkit: "${server.toolkit}" is already used by ${label}[${other}]`);
        return;
      }
      toolkits.set(server.toolkit.toLowerCase(), index);
    }
    servers.push(server);
  });
  return errors.length > 0 ? { servers: [], errors } : { servers, errors };
}
