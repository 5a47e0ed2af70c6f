import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NAME_PATTERN } from '../catalog/tool-catalog.loader';

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
const KEYS = ['id', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'toolkit', 'timeout_ms'];

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
    const server = parseServer(entry, at, errors);
    if (server === undefined) return;
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseServer(entry: unknown, at: string, problems: string[]): McpServerConfig | undefined {
  if (!isObject(entry)) {
    problems.push(`${at}: expected an object`);
    return undefined;
  }
  const before = problems.length;
  const fail = (key: string, message: string): undefined => {
    problems.push(`${at}.${key}: ${message}`);
    return undefined;
  };
  for (const key of Object.keys(entry)) {
    if (!KEYS.includes(key)) fail(key, `unknown property (allowed: ${KEYS.join(', ')})`);
  }

  const id = readString(entry, 'id', fail);
  if (id !== undefined && !ID_PATTERN.test(id)) fail('id', `"${id}" must match ${ID_PATTERN}`);
  const toolkit = entry.toolkit === undefined ? undefined : readString(entry, 'toolkit', fail);
  if (toolkit !== undefined && !NAME_PATTERN.test(toolkit)) {
    fail('toolkit', `"${toolkit}" must match ${NAME_PATTERN}`);
  } else if (toolkit !== undefined && toolkit.length > MAX_TOOLKIT_NAME_LENGTH) {
    fail('toolkit', `must be at most ${MAX_TOOLKIT_NAME_LENGTH} characters`);
  }
  const timeoutMs = entry.timeout_ms;
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' ||
      !Number.isInteger(timeoutMs) ||
      timeoutMs < MIN_TIMEOUT_MS ||
      timeoutMs > MAX_TIMEOUT_MS)
  ) {
    fail('timeout_ms', `must be an integer from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`);
  }

  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand === hasUrl) {
    problems.push(`${at}: set exactly one of "command" (stdio) and "url" (Streamable HTTP)`);
    return undefined;
  }
  const misplaced = hasCommand ? ['headers'] : ['args', 'env', 'cwd'];
  for (const key of misplaced) {
    if (entry[key] !== undefined)
      fail(key, `does not apply to ${hasCommand ? 'a stdio' : 'an HTTP'} server`);
  }

  const base = {
    id: id ?? '',
    ...(toolkit !== undefined && { toolkit }),
    ...(typeof timeoutMs === 'number' && { timeoutMs }),
  };
  if (hasCommand) {
    const command = readString(entry, 'command', fail);
    const args = readStringList(entry, 'args', fail);
    const env = readSecretMap(entry, 'env', fail);
    const cwd = entry.cwd === undefined ? undefined : readString(entry, 'cwd', fail);
    if (problems.length > before || command === undefined || !args || !env) return undefined;
    return { ...base, transport: 'stdio', command, args, env, ...(cwd !== undefined && { cwd }) };
  }
  const url = readUrl(entry, fail);
  const headers = readSecretMap(entry, 'headers', fail);
  if (problems.length > before || url === undefined || !headers) return undefined;
  return { ...base, transport: 'http', url, headers };
}

type Fail = (key: string, message: string) => undefined;

function readString(entry: Record<string, unknown>, key: string, fail: Fail): string | undefined {
  const value = entry[key];
  if (value === undefined) return fail(key, 'is required');
  if (typeof value !== 'string' || value.trim() === '')
    return fail(key, 'must be a non-empty string');
  return value;
}

function readStringList(
  entry: Record<string, unknown>,
  key: string,
  fail: Fail,
): string[] | undefined {
  const value = entry[key];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    return fail(key, 'must be an array of strings');
  }
  return [...value];
}

/** A map of names to string values whose values are never echoed. */
function readSecretMap(
  entry: Record<string, unknown>,
  key: string,
  fail: Fail,
): Record<string, string> | undefined {
  const value = entry[key];
  if (value === undefined) return {};
  if (!isObject(value)) return fail(key, 'must be an object of string values');
  const bad = Object.keys(value).filter((name) => typeof value[name] !== 'string');
  if (bad.length > 0) return fail(key, `values must be strings (see ${bad.join(', ')})`);
  return { ...(value as Record<string, string>) };
}

function readUrl(entry: Record<string, unknown>, fail: Fail): string | undefined {
  const value = readString(entry, 'url', fail);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('url', 'is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail('url', 'must be an http:// or https:// URL');
  }
  return value;
}
