import type { IncomingHttpHeaders } from 'node:http';
import type { Agent } from 'undici';
import { keepAliveAgent } from '../../common/outbound-http';
import { UnsafePathSegmentError, urlWithPath } from '../../common/url-path';
import { ToolExecutionError } from '../execution/tool-executor';

/** An array repeats the parameter (`?h=From&h=To`). */
export type QueryValue = string | number | boolean | undefined | readonly string[];

export interface ProviderRequest {
  method: 'GET' | 'POST';
  /** The provider's configured base URL (path allowed, e.g. https://slack.com/api). */
  baseUrl: string;
  /**
   * The path after the base URL's own, one segment per element, each encoded here (encodePath):
   * `['repos', owner, repo, 'pulls']`. A segment `.`, `..` or empty fails the call.
   */
  path: readonly string[];
  query?: Readonly<Record<string, QueryValue>>;
  headers?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  json?: unknown;
  /** The execution's signal: the call stops when the execution times out. */
  signal: AbortSignal;
  /** Credentials in this request, scrubbed from any error message. */
  secrets: readonly string[];
}

export interface ProviderResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or undefined when it is not JSON. */
  body: unknown;
}

/** Providers answer small JSON documents; a bigger answer is refused rather than buffered. */
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const MAX_ERROR_LENGTH = 500;
const UNDICI_BACKSTOP_MS = 2_000;

/**
 * The one outbound HTTP client of the built-in toolkits: a keep-alive undici pool whose calls end
 * when the execution's signal aborts (its timeout). It never throws anything but
 * ToolExecutionError, and never lets a credential into an error message.
 */
export class ProviderHttpClient {
  private readonly agent: Agent;
  private closing?: Promise<void>;

  constructor(options: { timeoutMs: number; connections?: number }) {
    this.agent = keepAliveAgent({
      connections: options.connections ?? 32,
      // The execution's signal is what ends a call (and makes it timed_out); undici's own
      // time-outs are only a backstop, later, so the two never race on a loaded machine.
      timeoutMs: options.timeoutMs + UNDICI_BACKSTOP_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  }

  async request(provider: string, request: ProviderRequest): Promise<ProviderResponse> {
    let url: URL;
    try {
      url = urlWithPath(request.baseUrl, ...request.path);
    } catch (error) {
      if (error instanceof UnsafePathSegmentError) throw new ToolExecutionError(error.message);
      throw error;
    }
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, item);
      else if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'agentline',
      ...request.headers,
    };
    if (request.json !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    try {
      const response = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers,
        body: request.json === undefined ? undefined : JSON.stringify(request.json),
        signal: request.signal,
      });
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, body: parseJson(text) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolExecutionError(
        redact(`${provider} could not be reached: ${message}`, request.secrets),
      );
    }
  }

  close(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }
}

/** The error a non-2xx answer becomes, with the provider's own message when it gave one. */
export function providerError(
  provider: string,
  status: number,
  message: string | undefined,
  secrets: readonly string[],
): ToolExecutionError {
  const text = `${provider} answered HTTP ${status}${message ? `: ${message}` : ''}`;
  return new ToolExecutionError(redact(text, secrets));
}

export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (secret) result = result.split(secret).join('[redacted]');
  return result.length > MAX_ERROR_LENGTH ? `${result.slice(0, MAX_ERROR_LENGTH - 1)}…` : result;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reading providers' JSON without `any`. */
export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function records(value: unknown): JsonRecord[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}
