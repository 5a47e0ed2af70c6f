import { randomBytes } from 'node:crypto';
import { Readable, Transform, TransformCallback } from 'node:stream';
import { Agent } from 'undici';
import { isRecord, keepAliveAgent } from '../../../common/outbound-http';
import { encodePath, UnsafePathSegmentError } from '../../../common/url-path';
import {
  badGateway,
  GraphCallFailure,
  graphAnswerFailure,
  graphRequestFailure,
  isTokenRejection,
  parseGraphError,
  redactSecret,
  truncate,
  unavailable,
} from '../meta/graph-api.client';
import { GraphApiBase, GraphApiUrl } from '../meta/graph-api-base';

export interface WhatsappMediaClientOptions {
  /** GRAPH_API_URL, version path included. */
  graphApiUrl: GraphApiUrl;
  /**
   * GRAPH_API_TIMEOUT_MS: the whole Graph lookup; for the download, its connection and headers,
   * then the longest wait for the next byte (no overall time-out: a big file takes its time).
   */
  timeoutMs: number;
}

/** What Graph's `GET /{media_id}` says of a media (WhatsApp Cloud API, "Retrieve media URL"). */
export interface MediaInfo {
  /** Short-lived (5 minutes) download URL, to be fetched with the same token. */
  url: URL;
  mimeType: string;
  /** Graph's `file_size` (a number or a string of digits); undefined when it gives none. */
  fileSize?: number;
}

/** The media URL's answer, headers read, body not yet. */
export interface MediaBody {
  body: Readable;
  /** Its Content-Length, when it sent a valid one. */
  contentLength?: number;
}

/** Why a lookup or a download failed; the service turns it into a problem. */
export type MediaFailure =
  | GraphCallFailure
  | { failure: 'not_found'; message: string }
  | { failure: 'too_large'; size: number };

export const isMediaFailure = (value: object): value is MediaFailure => 'failure' in value;

/** A file to upload, its bytes read as they come. */
export interface MediaUpload {
  /** Meta's `type`: the MIME type, without parameters. */
  mimeType: string;
  filename: string;
  body: Readable;
}

/** Graph's media lookups answer a small JSON object. */
const MAX_LOOKUP_BYTES = 64 * 1024;
/** Sockets per pool; downloads are bounded by the callers' own connections. */
const CONNECTIONS = 64;
/**
 * Meta's media hosts, over https on the default port (the Cloud API's "Download media" URLs are
 * `https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=…`); and their subdomains.
 * Anything else would receive the channel's token: see docs/decisions.md, "Issue 19: media
 * download".
 */
const META_MEDIA_DOMAINS = ['fbsbx.com', 'fbcdn.net', 'whatsapp.net'];
/** `type/subtype` and optional parameters, as a header value may carry them. */
const MIME_TYPE =
  /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/;

/**
 * Downloads inbound WhatsApp media: Graph `GET /{media_id}` with the channel's token, then that
 * answer's short-lived URL with the same token, streamed. Never throws; a failure is a
 * MediaFailure. Channels' own: nothing outside src/channels/ imports it.
 */
export class WhatsappMediaClient {
  private readonly lookupAgent: Agent;
  private readonly downloadAgent: Agent;
  private readonly graph: GraphApiBase;
  private readonly timeoutMs: number;

  constructor(options: WhatsappMediaClientOptions) {
    this.graph = new GraphApiBase(options.graphApiUrl);
    this.timeoutMs = options.timeoutMs;
    this.lookupAgent = keepAliveAgent({
      connections: CONNECTIONS,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: MAX_LOOKUP_BYTES,
    });
    // undici's bodyTimeout is the time between two chunks of the body, and it does not run while
    // the body is paused by a slow reader: it is the idle time-out the download needs.
    this.downloadAgent = new Agent({
      connections: CONNECTIONS,
      keepAliveTimeout: 10_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: options.timeoutMs },
    });
  }

  /** The origin that, beside Meta's media hosts, may receive the token (a fake Graph in tests). */
  get graphApiOrigin(): string {
    return this.graph.origin;
  }

  async lookup(
    mediaId: string,
    accessToken: string,
    signal: AbortSignal,
  ): Promise<MediaInfo | MediaFailure> {
    const redact = (text: string) => redactSecret(text, accessToken);
    let path: string;
    try {
      path = `${this.graph.path}${encodePath(mediaId)}`;
    } catch (error) {
      // '', '.' and '..', which the service refuses before it gets here.
      if (!(error instanceof UnsafePathSegmentError)) throw error;
      return { failure: 'not_found', message: error.message };
    }
    let response;
    try {
      response = await this.lookupAgent.request({
        origin: this.graph.origin,
        path,
        method: 'GET',
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      });
    } catch (error) {
      return this.requestFailure(error, signal, 'Graph API', redact);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      return this.requestFailure(error, signal, 'Graph API', redact);
    }
    const { statusCode, headers } = response;
    if (statusCode >= 200 && statusCode < 300) {
      return readMediaInfo(text) ?? badGateway('Graph API answered without a usable media url');
    }
    const graph = parseGraphError(text);
    // 100 "Unsupported get request. Object with ID ... does not exist, cannot be loaded due to
    // missing permissions, or does not support this operation" (subcode 33): the id is unknown
    // or expired; the media id is the only parameter sent.
    if (!isTokenRejection(statusCode, graph?.code) && (statusCode === 404 || graph?.code === 100)) {
      const message = graph?.message ?? `Graph API answered HTTP ${statusCode} to the media lookup`;
      return { failure: 'not_found', message: truncate(redact(message)) };
    }
    return graphAnswerFailure(statusCode, headers, text, { redact, otherwise: 'the media lookup' });
  }

  /**
   * GETs the media URL with the token, when its host is Meta's (or Graph's own origin); no
   * redirect is followed. Answers once the headers are in; the caller streams the body.
   */
  async download(
    url: URL,
    accessToken: string,
    { maxBytes, signal }: { maxBytes: number; signal: AbortSignal },
  ): Promise<MediaBody | MediaFailure> {
    if (!this.mayReceiveToken(url)) {
      return badGateway(
        `Graph API gave a media URL on ${url.protocol}//${url.host}, which is not Meta's media host; not followed`,
      );
    }
    const redact = (text: string) => redactSecret(text, accessToken);
    let response;
    try {
      response = await this.downloadAgent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { authorization: `Bearer ${accessToken}` },
        signal,
      });
    } catch (error) {
      return this.requestFailure(error, signal, 'The media host', redact);
    }
    const { statusCode, headers, body } = response;
    if (statusCode < 200 || statusCode >= 300) {
      // Nothing of an error body is needed; do not wait for it.
      body.destroy();
      const message = `The media host answered HTTP ${statusCode}`;
      if (statusCode === 404 || statusCode === 410) {
        return { failure: 'not_found', message: `${message}: the download URL has expired` };
      }
      if (statusCode >= 300 && statusCode < 400) {
        return badGateway(`${message} (a redirect); redirects are not followed with the token`);
      }
      if (statusCode === 429 || statusCode >= 500) {
        return unavailable(message, headers['retry-after']);
      }
      return badGateway(message);
    }
    const contentLength = readContentLength(headers['content-length']);
    if (contentLength !== undefined && contentLength > maxBytes) {
      body.destroy();
      return { failure: 'too_large', size: contentLength };
    }
    return contentLength === undefined ? { body } : { body, contentLength };
  }

  /**
   * Meta's "Upload media": Graph `POST /{number_id}/media`, multipart with `messaging_product`
   * `whatsapp`, `type` (the MIME type) and `file`, the file streamed as the caller's stream gives
   * it (undici pulls it: backpressure) and answered `{ id }`. No overall time-out, as a big file
   * takes its time; Graph's answer, once the body is sent, within GRAPH_API_TIMEOUT_MS. Never throws.
   */
  async upload(
    numberId: string,
    accessToken: string,
    file: MediaUpload,
    signal: AbortSignal,
  ): Promise<{ mediaId: string } | GraphCallFailure> {
    const redact = (text: string) => redactSecret(text, accessToken);
    let path: string;
    try {
      path = `${this.graph.path}${encodePath(numberId, 'media')}`;
    } catch (error) {
      if (!(error instanceof UnsafePathSegmentError)) throw error;
      return badGateway(error.message);
    }
    const boundary = `agentline-${randomBytes(16).toString('hex')}`;
    try {
      const { statusCode, headers, body } = await this.lookupAgent.request({
        origin: this.graph.origin,
        path,
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          accept: 'application/json',
        },
        body: Readable.from(multipartBody(boundary, file), { objectMode: false }),
        signal,
      });
      const text = await body.text();
      if (statusCode >= 200 && statusCode < 300) {
        const id = readUploadedId(text);
        return id === undefined
          ? badGateway('Graph API answered the upload without an id')
          : { mediaId: id };
      }
      return graphAnswerFailure(statusCode, headers, text, { redact, otherwise: 'the upload' });
    } catch (error) {
      return this.requestFailure(error, signal, 'Graph API', redact) as GraphCallFailure;
    }
  }

  /** Idempotent; Nest calls it on shutdown. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.lookupAgent.close(), this.downloadAgent.close()]);
  }

  private mayReceiveToken(url: URL): boolean {
    if (url.username || url.password) return false;
    if (url.origin === this.graph.origin) return true;
    const host = url.hostname.toLowerCase();
    return (
      url.protocol === 'https:' &&
      url.port === '' &&
      META_MEDIA_DOMAINS.some((domain) => host === domain || host.endsWith(`.${domain}`))
    );
  }

  private requestFailure(
    error: unknown,
    signal: AbortSignal,
    who: string,
    redact: (text: string) => string,
  ): MediaFailure {
    return graphRequestFailure(error, {
      signal,
      who,
      timeoutMs: this.timeoutMs,
      redact,
      tooLarge: `answered more than ${MAX_LOOKUP_BYTES} bytes to the media lookup`,
    });
  }
}

/** `messaging_product`, `type` and `file` as multipart/form-data (RFC 7578), the file streamed. */
async function* multipartBody(boundary: string, file: MediaUpload): AsyncGenerator<Buffer> {
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  // A name's quotes, backslashes and line breaks would end its quoted string early.
  const filename = file.filename.replace(/["\\\r\n]/g, '_');
  yield Buffer.from(
    `${field('messaging_product', 'whatsapp')}${field('type', file.mimeType)}--${boundary}\r\n` +
      `Content-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      `Content-Type: ${file.mimeType}\r\n\r\n`,
  );
  for await (const chunk of file.body) yield chunk as Buffer;
  yield Buffer.from(`\r\n--${boundary}--\r\n`);
}

/** Graph's `{ id }` for an uploaded media; undefined if not that. */
function readUploadedId(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  const { id } = parsed;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** `{ messaging_product, url, mime_type, sha256, file_size, id }`; undefined if not that. */
function readMediaInfo(text: string): MediaInfo | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed.url !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(parsed.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const mimeType =
    typeof parsed.mime_type === 'string' && MIME_TYPE.test(parsed.mime_type)
      ? parsed.mime_type
      : 'application/octet-stream';
  const fileSize = readSize(parsed.file_size);
  return fileSize === undefined ? { url, mimeType } : { url, mimeType, fileSize };
}

/** Graph sends `file_size` as a number or as a string of digits. */
function readSize(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}

function readContentLength(value: string | string[] | undefined): number | undefined {
  return typeof value === 'string' ? readSize(value.trim()) : undefined;
}

/** The stream stopped because the media host sent more bytes than allowed or announced. */
export class MediaSizeExceededError extends Error {
  constructor(readonly limit: number) {
    super(`the media host sent more than ${limit} bytes`);
    this.name = 'MediaSizeExceededError';
  }
}

/**
 * Passes bytes through, and fails (destroying the pipeline, so the client sees a cut transfer)
 * at the first byte past `limit`: MEDIA_MAX_BYTES, or the Content-Length announced if smaller.
 */
export class ByteLimit extends Transform {
  private seen = 0;

  /** Lowered by a subclass that learns more of the file from its first bytes. */
  constructor(protected limit: number) {
    super();
  }

  get bytes(): number {
    return this.seen;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limit) {
      done(new MediaSizeExceededError(this.limit));
      return;
    }
    done(null, chunk);
  }
}
