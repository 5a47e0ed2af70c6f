import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { graphError } from '../../src/sandbox/graph/graph-errors';
import { CheckedSend, checkMessagesBody } from '../../src/sandbox/graph/graph-send-body';
import type { ReceivedTemplate } from '../../src/sandbox/graph/graph-template-shapes';
import { FakeGraphTemplates } from './fake-graph-templates';
import { FakeGraphActions } from './fake-graph-actions';

// Meta's shapes and errors are the sandbox's (src/sandbox/graph/): one copy for both stand-ins.
export { graphError } from '../../src/sandbox/graph/graph-errors';
export type { ReceivedTemplate } from '../../src/sandbox/graph/graph-template-shapes';

/** A send that the fake accepted (answered 2xx). */
export interface ReceivedMessage extends FakeGraphRequest {
  receivedAt: number;
  wamid: string;
}

export interface FakeGraphRequest {
  numberId: string;
  to: string;
  /** The text; '' for a template. */
  body: string;
  /** Only for `type: "template"`. */
  template?: ReceivedTemplate;
  /** Only for Messenger's Send API (`numberId` is then the Page id, `to` the PSID). */
  messagingType?: string;
  /** WhatsApp sent to a business-scoped user id: `recipient` instead of `to` (then `to` holds it too). */
  recipient?: string;
  /** The request's JSON body, exactly as received. */
  payload?: unknown;
  accessToken: string;
}

/** A scripted answer: a status with a JSON or raw body, optionally late; or no answer at all. */
export type FakeReply =
  | {
      status: number;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  | 'hang'
  | 'destroy';

export type FakeGraphHandler = (req: FakeGraphRequest) => FakeReply | undefined;

/**
 * A media file the fake keeps, as WhatsApp's Cloud API does for a received image or document:
 * `GET /{version}/{id}` answers its URL and metadata ("Retrieve media URL"), and that URL its
 * bytes ("Download media"). Bytes are generated as they are sent, so a big file costs no memory.
 */
export interface FakeMedia {
  id: string;
  mimeType: string;
  /** How many bytes the download sends. */
  size: number;
  /** Graph's `file_size`: by default `size`; `null` leaves it out (a string is allowed). */
  fileSize?: number | string | null;
  /** Send Content-Length with the bytes (default true; false: chunked). */
  contentLength?: boolean;
  /** The `url` Graph answers; by default this fake's own download URL for the media. */
  url?: string;
  /** The download URL answers this status (and no bytes) instead: 404 for an expired URL. */
  downloadStatus?: number;
  /** Headers of that answer (a redirect's Location). */
  downloadHeaders?: Record<string, string>;
  /** Send this many bytes, then nothing more (the connection stays open). */
  stallAfter?: number;
}

/** One request to a media download URL, as the fake saw it. */
export interface FakeMediaDownload {
  mediaId: string;
  accessToken: string | undefined;
  /** Bytes accepted by the socket so far. */
  bytesSent: number;
  /** All bytes sent and the answer ended. */
  finished: boolean;
  /** The connection closed before the answer ended (the other side gave up). */
  closedEarly: boolean;
}

const MEDIA_CHUNK = 64 * 1024;
const MEDIA_PATH = /^\/media-files\/([^/?]+)(?:\?.*)?$/;

/** The bytes of a generated media file, chunk by chunk (the same every time for the same id). */
export function* mediaChunks(media: Pick<FakeMedia, 'id' | 'size'>): Generator<Buffer> {
  const pattern = createHash('sha512').update(media.id).digest();
  const chunk = Buffer.alloc(MEDIA_CHUNK);
  for (let offset = 0; offset < MEDIA_CHUNK; offset += pattern.length) pattern.copy(chunk, offset);
  for (let sent = 0; sent < media.size; sent += MEDIA_CHUNK) {
    yield media.size - sent >= MEDIA_CHUNK ? chunk : chunk.subarray(0, media.size - sent);
  }
}

/** The sha256 (hex) of a generated media file. */
export function mediaSha256(media: Pick<FakeMedia, 'id' | 'size'>): string {
  const hash = createHash('sha256');
  for (const chunk of mediaChunks(media)) hash.update(chunk);
  return hash.digest('hex');
}

const VERSION = 'v23.0';
const PATH = new RegExp(`^/${VERSION.replace('.', '\\.')}/([^/?]+)/messages(?:\\?.*)?$`);
const NODE_PATH = new RegExp(`^/${VERSION.replace('.', '\\.')}/([^/?]+)(?:\\?.*)?$`);
const MAX_BODY_BYTES = 1024 * 1024;

/** A reply carrying a Meta error body, e.g. `graphErrorReply(400, 131026, 'Message undeliverable')`. */
export function graphErrorReply(
  status: number,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): FakeReply {
  return { status, body: graphError(code, message, extra) };
}

/** A real HTTP server on 127.0.0.1 that plays the WhatsApp Cloud API's send-message endpoint. */
export class FakeGraphApi {
  readonly messages: ReceivedMessage[] = [];
  /** How long a default success takes to answer (the message counts as received at once). */
  latencyMs = 0;
  /** Sockets opened since start (or the last reset). */
  connections = 0;

  /** Uploads, read receipts and sender actions (test/support/fake-graph-actions.ts). */
  readonly actions = new FakeGraphActions();

  /** Media lookups (`GET /{media_id}`), in order, answered or not. */
  readonly mediaLookups: { mediaId: string; accessToken: string | undefined }[] = [];
  /** Requests to media download URLs, in order. */
  readonly mediaDownloads: FakeMediaDownload[] = [];
  /** WhatsApp Business Accounts' message templates (`GET /{waba_id}/message_templates`). */
  readonly templates = new FakeGraphTemplates(() => this.url);

  private requestCount = 0;
  private readonly media = new Map<string, FakeMedia>();
  private readonly mediaLookupQueue: FakeReply[] = [];
  private readonly queue: FakeReply[] = [];
  private handler: FakeGraphHandler | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters = new Set<{ n: number; resolve: () => void }>();
  // Unique per server so that wamids from parallel fakes never collide.
  private readonly wamidPrefix = randomBytes(6).toString('hex');
  private wamidCounter = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeGraphApi> {
    const server = createServer();
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const fake = new FakeGraphApi(server, `http://127.0.0.1:${port}/${VERSION}`);
    server.on('connection', (socket: Socket) => {
      fake.connections += 1;
      fake.sockets.add(socket);
      socket.once('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => fake.handle(req, res));
    return fake;
  }

  /** Every request, including rejected and scripted-failure ones. */
  get requests(): number {
    return this.requestCount;
  }

  /** Script the next replies (FIFO), then default success. */
  enqueue(...replies: FakeReply[]): void {
    this.queue.push(...replies);
  }

  /** Or decide per request; wins over the queue, and `undefined` falls back to it. */
  respondWith(handler: FakeGraphHandler | undefined): void {
    this.handler = handler;
  }

  /** The fake's origin (scheme, host and port), where its media download URLs are. */
  get origin(): string {
    return new URL(this.url).origin;
  }

  /** Keeps a media file: Graph knows its id from now on. */
  addMedia(media: FakeMedia): FakeMedia {
    this.media.set(media.id, media);
    return media;
  }

  /** Script the next media lookups' answers (FIFO), instead of the media's own. */
  enqueueMediaLookup(...replies: FakeReply[]): void {
    this.mediaLookupQueue.push(...replies);
  }

  /** Resolves when `messages.length >= n`, rejects after timeoutMs. */
  waitForMessages(n: number, timeoutMs = 10_000): Promise<ReceivedMessage[]> {
    if (this.messages.length >= n) {
      return Promise.resolve(this.messages);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.messages);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(`Expected ${n} messages within ${timeoutMs} ms, got ${this.messages.length}`),
        );
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  reset(): void {
    this.messages.length = 0;
    this.queue.length = 0;
    this.handler = undefined;
    this.requestCount = 0;
    this.connections = 0;
    this.latencyMs = 0;
    this.media.clear();
    this.mediaLookupQueue.length = 0;
    this.mediaLookups.length = 0;
    this.mediaDownloads.length = 0;
    this.templates.reset();
    this.actions.reset();
  }

  /** Stops listening and destroys every socket, hanging ones included. */
  async close(): Promise<void> {
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requestCount += 1;
    if (req.method === 'GET') {
      req.resume();
      this.handleGet(req, res);
      return;
    }
    if (this.actions.upload(req, res, () => this.queue.shift())) return;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
      }
    });
    req.on('end', () => this.answer(req, res, Buffer.concat(chunks).toString('utf8')));
  }

  private answer(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const match = req.method === 'POST' ? PATH.exec(req.url ?? '') : null;
    if (!match) {
      return send(res, {
        status: 400,
        body: graphError(100, `Unsupported ${req.method ?? ''} request.`, {
          type: 'GraphMethodException',
        }),
      });
    }
    const authorization = req.headers.authorization ?? '';
    const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
    if (!token) {
      return send(res, {
        status: 401,
        body: graphError(190, 'Invalid OAuth access token - Cannot parse access token'),
      });
    }
    const contentType = req.headers['content-type'];
    const action = { senderId: safeDecode(match[1]), accessToken: token, raw, contentType };
    if (this.actions.action(res, action, () => this.queue.shift())) return;
    const invalid = validate(req.headers['content-type'], raw);
    if (typeof invalid === 'string') {
      return send(res, { status: 400, body: graphError(100, invalid) });
    }

    const request: FakeGraphRequest = {
      numberId: safeDecode(match[1]),
      ...invalid,
      accessToken: token,
    };
    const reply = this.handler?.(request) ?? this.queue.shift() ?? 'success';
    if (reply === 'hang') {
      return;
    }
    if (reply === 'destroy') {
      req.socket.destroy();
      return;
    }
    const wamid = this.nextWamid();
    const resolved: Exclude<FakeReply, 'hang' | 'destroy'> =
      reply === 'success' && request.messagingType !== undefined
        ? { status: 200, body: { recipient_id: request.to, message_id: `m_${wamid}` } }
        : reply === 'success'
          ? {
              status: 200,
              body: {
                messaging_product: 'whatsapp',
                // Meta's answer to a send to a BSUID names it as user_id, with no wa_id.
                contacts: [
                  request.recipient !== undefined
                    ? { input: request.recipient, user_id: request.recipient }
                    : { input: request.to, wa_id: request.to.replace(/\D/g, '') },
                ],
                messages: [{ id: wamid }],
              },
              delayMs: this.latencyMs,
            }
          : reply;
    if (resolved.status >= 200 && resolved.status < 300) {
      const id = request.messagingType !== undefined ? `m_${wamid}` : wamid;
      this.accept({ ...request, receivedAt: Date.now(), wamid: id });
    }
    if (resolved.delayMs && resolved.delayMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        send(res, resolved);
      }, resolved.delayMs);
      this.timers.add(timer);
      return;
    }
    send(res, resolved);
  }

  /** Graph's `GET /{media_id}`, and the media download URLs. */
  private handleGet(req: IncomingMessage, res: ServerResponse): void {
    const accessToken = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const download = MEDIA_PATH.exec(req.url ?? '');
    if (download) {
      this.download(safeDecode(download[1]), accessToken, res);
      return;
    }
    const templates = this.templates.answer(req.url ?? '', accessToken, res);
    if (templates === 'destroy') req.socket.destroy();
    else if (templates && templates !== 'hang') this.later(res, templates);
    if (templates) return;
    const node = NODE_PATH.exec(req.url ?? '');
    if (!node) {
      send(res, { status: 400, body: graphError(100, 'Unsupported get request.') });
      return;
    }
    const mediaId = safeDecode(node[1]);
    this.mediaLookups.push({ mediaId, accessToken });
    if (!accessToken) {
      send(res, {
        status: 401,
        body: graphError(190, 'Invalid OAuth access token - Cannot parse access token'),
      });
      return;
    }
    const scripted = this.mediaLookupQueue.shift();
    if (scripted === 'hang') return;
    if (scripted === 'destroy') {
      req.socket.destroy();
      return;
    }
    if (scripted) {
      this.later(res, scripted);
      return;
    }
    const media = this.media.get(mediaId);
    if (!media) {
      // What Graph answers for an id it does not know, or no longer keeps.
      send(res, {
        status: 400,
        body: graphError(
          100,
          `Unsupported get request. Object with ID '${mediaId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
          { type: 'GraphMethodException', error_subcode: 33 },
        ),
      });
      return;
    }
    const fileSize = media.fileSize === undefined ? media.size : media.fileSize;
    send(res, {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        url:
          media.url ??
          `${this.origin}/media-files/${encodeURIComponent(media.id)}?mid=${media.id}&ext=${Math.floor(Date.now() / 1000) + 300}&hash=${randomBytes(8).toString('hex')}`,
        mime_type: media.mimeType,
        sha256: mediaSha256(media),
        ...(fileSize === null ? {} : { file_size: fileSize }),
        id: media.id,
      },
    });
  }

  /** Streams a media file's bytes, as fast as the reader takes them (await 'drain'). */
  private download(mediaId: string, accessToken: string | undefined, res: ServerResponse): void {
    const seen: FakeMediaDownload = {
      mediaId,
      accessToken,
      bytesSent: 0,
      finished: false,
      closedEarly: false,
    };
    this.mediaDownloads.push(seen);
    const media = this.media.get(mediaId);
    if (!accessToken) {
      res.writeHead(401).end();
      return;
    }
    if (!media || media.downloadStatus !== undefined) {
      res.writeHead(media?.downloadStatus ?? 404, media?.downloadHeaders ?? {}).end();
      return;
    }
    res.once('close', () => {
      if (!res.writableFinished) seen.closedEarly = true;
    });
    res.writeHead(200, {
      'content-type': media.mimeType,
      ...(media.contentLength === false ? {} : { 'content-length': String(media.size) }),
    });
    void (async () => {
      for (const chunk of mediaChunks(media)) {
        const part =
          media.stallAfter === undefined
            ? chunk
            : chunk.subarray(0, Math.max(0, media.stallAfter - seen.bytesSent));
        if (part.length === 0) return; // stalled: the connection stays open, silent
        if (res.destroyed) return;
        const more = res.write(part);
        seen.bytesSent += part.length;
        if (!more) {
          await new Promise<void>((resolve) => {
            const go = () => {
              res.off('drain', go);
              res.off('close', go);
              resolve();
            };
            res.on('drain', go);
            res.on('close', go);
          });
        }
      }
      if (!res.destroyed) res.end(() => (seen.finished = true));
    })();
  }

  private later(res: ServerResponse, reply: Exclude<FakeReply, 'hang' | 'destroy'>): void {
    if (!reply.delayMs) {
      send(res, reply);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send(res, reply);
    }, reply.delayMs);
    this.timers.add(timer);
  }

  private accept(message: ReceivedMessage): void {
    this.messages.push(message);
    if (this.waiters.size === 0) {
      return;
    }
    for (const waiter of this.waiters) {
      if (this.messages.length >= waiter.n) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private nextWamid(): string {
    this.wamidCounter += 1;
    return `wamid.${Buffer.from(`${this.wamidPrefix}${this.wamidCounter.toString(36)}`).toString('base64url')}`;
  }
}

/** Checks the send-message payload the way Meta does; returns the error message or the fields. */
function validate(contentType: string | undefined, raw: string): string | CheckedSend {
  const checked = checkMessagesBody(contentType, raw);
  if (typeof checked === 'string') return checked;
  // Read receipts and sender actions are the actions' (fake-graph-actions.ts), answered before.
  return checked.call === 'send' ? checked.send : '(#100) Invalid parameter';
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function send(res: ServerResponse, reply: Exclude<FakeReply, 'hang' | 'destroy'>): void {
  if (res.destroyed || res.writableEnded) {
    return;
  }
  const payload =
    reply.rawBody ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body));
  const headers: Record<string, string> = {
    'content-type':
      reply.rawBody !== undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
  };
  for (const [name, value] of Object.entries(reply.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  if (payload !== undefined) {
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}
