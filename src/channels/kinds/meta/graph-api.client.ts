import type { IncomingHttpHeaders } from 'node:http';
import type { Agent } from 'undici';
import { describeOutboundError, isRecord, keepAliveAgent } from '../../../common/outbound-http';
import { encodePath, UnsafePathSegmentError } from '../../../common/url-path';
import { SendOutcome } from '../../channel-transport';
import { GraphApiBase, GraphApiUrl } from './graph-api-base';

export interface GraphApiClientOptions {
  /** GRAPH_API_URL, version path included, e.g. https://graph.facebook.com/v23.0 */
  baseUrl: GraphApiUrl;
  /** Overall budget for one request: connect, headers and body. */
  timeoutMs: number;
  /** Sockets kept open to Graph; bounds concurrent sends. */
  connections?: number;
}

export interface GraphMessageInput {
  /** The node that sends: a WhatsApp phone number id, or (Messenger) a Page id. */
  senderId: string;
  accessToken: string;
  /** The JSON body of `POST /{senderId}/messages`, as the channel kind's transport builds it. */
  payload: object;
  /** Reads, from an accepted send's answer, other forms of the recipient (the kind's transport knows the shape). */
  recipientForms?: (answer: unknown) => string[];
}

/**
 * Graph codes that mean "the token itself is bad" (Graph API error handling docs):
 * 0 AuthException, 102 API Session (login status or token expired), 190 invalid or expired OAuth
 * token (any subcode: 458-467). HTTP 401 is treated the same whatever the code.
 * Permission errors (3, 10, 200-299, 131005) are not here: the token works but lacks a grant,
 * so they fail the delivery as permanent instead of disabling the channel.
 */
const UNAUTHORIZED_CODES: ReadonlySet<number> = new Set([0, 102, 190]);

/** Graph refused the token itself (not a missing grant): HTTP 401, or code 0, 102 or 190. */
export const isTokenRejection = (status: number, graphCode: number | undefined): boolean =>
  status === 401 || (graphCode !== undefined && UNAUTHORIZED_CODES.has(graphCode));

/**
 * Graph codes worth retrying (WhatsApp Cloud API error-code reference):
 * 1       API Unknown: possibly a server error
 * 2       API Service: temporary downtime or overload
 * 4       API Too Many Calls: app-level rate limit
 * 17      API User Too Many Calls: user-level rate limit
 * 341     Application limit reached
 * 613     Calls to this API exceeded the rate limit
 * 80007   Rate limit issues for the WhatsApp Business Account
 * 130429  Cloud API message throughput reached
 * 131000  Something went wrong (unknown server-side failure)
 * 131016  Service unavailable
 * 131056  Business/consumer pair rate limit: too many messages to the same number
 * 131057  Business account in maintenance mode (e.g. a throughput upgrade)
 * Plus any error whose body says `is_transient: true`, and HTTP 429 and 5xx whatever the code.
 * Deliberately permanent: 131048 (spam rate limit) and 131049 (Meta chose not to deliver) are
 * quality restrictions, and 368 (policy block) needs a human; hammering them only hurts quality.
 */
const TRANSIENT_CODES: ReadonlySet<number> = new Set([
  1, 2, 4, 17, 341, 613, 80007, 130429, 131000, 131016, 131056, 131057,
]);

const MAX_MESSAGE_LENGTH = 500;
/** Graph's answers are small; a bigger one is not Graph and must not fill memory. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** A Retry-After beyond a day is a broken header, not advice. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export interface GraphError {
  code?: number;
  message?: string;
  details?: string;
  isTransient: boolean;
}

/**
 * Posts messages to Meta's Graph API (`/{sender}/messages`, the same call for WhatsApp and
 * Messenger) over one keep-alive connection pool, and classifies Graph's answer. Channels' own:
 * the transports build the payloads; nothing outside src/channels/ imports this.
 */
export class GraphApiClient {
  private readonly agent: Agent;
  private readonly base: GraphApiBase;
  private readonly timeoutMs: number;
  private closing?: Promise<void>;

  constructor(options: GraphApiClientOptions) {
    this.base = new GraphApiBase(options.baseUrl);
    this.timeoutMs = options.timeoutMs;
    this.agent = keepAliveAgent({
      connections: options.connections ?? 64,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  }

  async sendMessage(input: GraphMessageInput): Promise<SendOutcome> {
    const redact = (text: string): string => redactSecret(text, input.accessToken);
    let response;
    try {
      response = await this.postToMessages(input, AbortSignal.timeout(this.timeoutMs));
    } catch (error) {
      // A sender id of "..": channels refuse it on input; one stored before that never goes out.
      if (error instanceof UnsafePathSegmentError) {
        return { kind: 'permanent', code: 'invalid_request', message: error.message };
      }
      return this.failure(error, redact);
    }

    const { statusCode, headers, body } = response;
    let text: string;
    try {
      text = await body.text();
    } catch {
      // Graph already accepted a 2xx: retrying would risk a duplicate message.
      if (statusCode >= 200 && statusCode < 300) {
        return { kind: 'sent', messageId: null };
      }
      text = '';
    }

    if (statusCode >= 200 && statusCode < 300) {
      const answer = parseJson(text);
      const forms = input.recipientForms?.(answer) ?? [];
      return {
        kind: 'sent',
        messageId: readMessageId(answer),
        ...(forms.length > 0 && { recipientForms: forms }),
      };
    }
    return classify(statusCode, headers, parseGraphError(text), redact);
  }

  /**
   * A call a client waits for, not a message (a read receipt, a sender action): `POST
   * /{senderId}/messages` with the payload, answered with Graph's parsed JSON or why it failed.
   * Never throws.
   */
  async postAction(
    input: Omit<GraphMessageInput, 'recipientForms'>,
    signal: AbortSignal,
  ): Promise<{ answer: unknown } | GraphCallFailure> {
    const redact = (text: string): string => redactSecret(text, input.accessToken);
    try {
      const { statusCode, headers, body } = await this.postToMessages(
        input,
        AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      );
      const text = await body.text();
      if (statusCode >= 200 && statusCode < 300) return { answer: parseJson(text) };
      return graphAnswerFailure(statusCode, headers, text, { redact, otherwise: 'the call' });
    } catch (error) {
      if (error instanceof UnsafePathSegmentError) return badGateway(error.message);
      return graphRequestFailure(error, {
        signal,
        who: 'Graph API',
        timeoutMs: this.timeoutMs,
        redact,
        tooLarge: `answered more than ${MAX_RESPONSE_BYTES} bytes`,
      });
    }
  }

  /** `POST /{senderId}/messages` with the JSON payload; throws UnsafePathSegmentError for "..". */
  private postToMessages(
    input: Pick<GraphMessageInput, 'senderId' | 'accessToken' | 'payload'>,
    signal: AbortSignal,
  ) {
    return this.agent.request({
      origin: this.base.origin,
      path: `${this.base.path}${encodePath(input.senderId, 'messages')}`,
      method: 'POST',
      headers: {
        authorization: `Bearer ${input.accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(input.payload),
      signal,
    });
  }

  /** Idempotent; lets in-flight sends finish, then closes the sockets. */
  close(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }

  /** Nest calls this last on shutdown, after deliveries have drained. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private failure(error: unknown, redact: (text: string) => string): SendOutcome {
    const { code, message, timedOut } = describeOutboundError(error);
    if (timedOut) {
      return {
        kind: 'transient',
        code: 'timeout',
        message: `Graph API did not answer within ${this.timeoutMs} ms`,
      };
    }
    const detail = `${code ? `${code}: ` : ''}${message}`;
    if (code === 'UND_ERR_INVALID_ARG') {
      // The request could not even be built (e.g. a token with a line break): no retry fixes that.
      return {
        kind: 'permanent',
        code: 'invalid_request',
        message: truncate(redact(`Graph API request rejected locally: ${detail}`)),
      };
    }
    return {
      kind: 'transient',
      code: 'network_error',
      message: truncate(redact(`Graph API request failed: ${detail}`)),
    };
  }
}

function classify(
  status: number,
  headers: IncomingHttpHeaders,
  graph: GraphError | undefined,
  redact: (text: string) => string,
): SendOutcome {
  const graphCode = graph?.code;
  const code = graphCode !== undefined ? String(graphCode) : `http_${status}`;
  const base = graph?.message ?? `Graph API answered HTTP ${status}`;
  const withDetails =
    graph?.details && !base.includes(graph.details) ? `${base} (${graph.details})` : base;
  const message = truncate(redact(withDetails));

  if (isTokenRejection(status, graphCode)) {
    return { kind: 'token_rejected', code, message };
  }
  if (
    status === 429 ||
    status >= 500 ||
    graph?.isTransient === true ||
    (graphCode !== undefined && TRANSIENT_CODES.has(graphCode))
  ) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    return retryAfterMs === undefined
      ? { kind: 'transient', code, message }
      : { kind: 'transient', code, message, retryAfterMs };
  }
  return { kind: 'permanent', code, message };
}

/** The answer's JSON, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** WhatsApp answers `{messages: [{id}]}`; Messenger's Send API `{recipient_id, message_id}`. */
function readMessageId(parsed: unknown): string | null {
  const messages = isRecord(parsed) ? parsed.messages : undefined;
  const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
  const id = isRecord(first) ? first.id : isRecord(parsed) ? parsed.message_id : undefined;
  return typeof id === 'string' && id.length > 0 ? id : null;
}

/** Meta's `{error: {message, type, code, error_data: {details}, is_transient}}`; undefined if not that. */
export function parseGraphError(text: string): GraphError | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = isRecord(parsed) ? parsed.error : undefined;
  if (!isRecord(error)) {
    return undefined;
  }
  const rawCode = error.code;
  const code =
    typeof rawCode === 'number' && Number.isInteger(rawCode)
      ? rawCode
      : typeof rawCode === 'string' && /^\d+$/.test(rawCode)
        ? Number(rawCode)
        : undefined;
  const details = isRecord(error.error_data) ? error.error_data.details : undefined;
  return {
    code,
    message: typeof error.message === 'string' && error.message ? error.message : undefined,
    details: typeof details === 'string' && details ? details : undefined,
    isTransient: error.is_transient === true,
  };
}

/** Retry-After is either delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (!header) {
    return undefined;
  }
  const trimmed = header.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - Date.now();
  if (Number.isNaN(ms)) {
    return undefined;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

export function redactSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

export function truncate(text: string): string {
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : text;
}

/**
 * Why a call to Graph that a client waits for (a media download or upload, a read receipt, a
 * sender action: never through the outbox) failed; `graphCallProblem` answers it.
 */
export type GraphCallFailure =
  | { failure: 'token_rejected'; code: string; message: string }
  | { failure: 'unavailable'; message: string; retryAfterMs?: number }
  | { failure: 'timeout'; message: string }
  | { failure: 'bad_gateway'; message: string }
  /** The caller went away (its signal aborted): nobody to answer. */
  | { failure: 'aborted' };

export const badGateway = (message: string): GraphCallFailure => ({
  failure: 'bad_gateway',
  message,
});

export const unavailable = (
  message: string,
  retryAfter: string | string[] | undefined,
): GraphCallFailure => {
  const retryAfterMs = parseRetryAfter(retryAfter);
  return retryAfterMs === undefined
    ? { failure: 'unavailable', message }
    : { failure: 'unavailable', message, retryAfterMs };
};

/**
 * Graph's answer that is not a 2xx: a refused token, Meta busy or down (429, 5xx, or an error it
 * calls transient), or anything else (an error this call does not expect, a body that is not
 * Graph's): `otherwise` names the call when Graph gave no message.
 */
export function graphAnswerFailure(
  statusCode: number,
  headers: IncomingHttpHeaders,
  text: string,
  { redact, otherwise }: { redact: (text: string) => string; otherwise: string },
): GraphCallFailure {
  const graph = parseGraphError(text);
  const message = truncate(
    redact(graph?.message ?? `Graph API answered HTTP ${statusCode} to ${otherwise}`),
  );
  if (isTokenRejection(statusCode, graph?.code)) {
    return {
      failure: 'token_rejected',
      code: String(graph?.code ?? `http_${statusCode}`),
      message,
    };
  }
  if (statusCode === 429 || statusCode >= 500 || graph?.isTransient === true) {
    return unavailable(message, headers['retry-after']);
  }
  return badGateway(message);
}

/** A request that got no answer: the caller gone, a time-out, a refused or broken connection. */
export function graphRequestFailure(
  error: unknown,
  {
    signal,
    who,
    timeoutMs,
    redact,
    tooLarge,
  }: {
    signal: AbortSignal;
    who: string;
    timeoutMs: number;
    redact: (text: string) => string;
    /** What to say when the answer exceeds the bytes allowed to it. */
    tooLarge: string;
  },
): GraphCallFailure {
  if (signal.aborted) return { failure: 'aborted' };
  const { code, message, timedOut } = describeOutboundError(error);
  if (timedOut) {
    return { failure: 'timeout', message: `${who} did not answer within ${timeoutMs} ms` };
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return badGateway(`${who} ${tooLarge}`);
  const detail = truncate(redact(`${code ? `${code}: ` : ''}${message}`));
  return code === 'UND_ERR_INVALID_ARG'
    ? badGateway(`${who} request rejected locally: ${detail}`)
    : { failure: 'unavailable', message: `${who} cannot be reached: ${detail}` };
}
