import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the fake received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The last value of each query parameter. */
  query: Record<string, string>;
  /** Every value of each query parameter, in order (`?h=From&h=To` is `{h: ['From', 'To']}`). */
  queryValues: Record<string, string[]>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, else the raw text ('' when empty). */
  body: unknown;
}

/** A scripted answer, optionally late; or no answer at all. */
export type FakeHttpReply =
  { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number } | 'hang';

export type FakeHttpRoute = (request: RecordedRequest) => FakeHttpReply;

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A real HTTP server on 127.0.0.1 that answers with a route function, for third-party APIs the
 * service calls. Replies queued with `enqueue` win over the route, first in first out.
 */
export class FakeHttpApi {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeHttpReply[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  protected constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly route: FakeHttpRoute,
  ) {}

  protected static async listen<T extends FakeHttpApi>(
    create: (server: Server, url: string) => T,
  ): Promise<T> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const fake = create(server, `http://127.0.0.1:${port}`);
    server.on('connection', (socket: Socket) => {
      fake.sockets.add(socket);
      socket.once('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => fake.handle(req, res));
    return fake;
  }

  /** The next replies, whatever the route would say. */
  enqueue(...replies: FakeHttpReply[]): void {
    this.queue.push(...replies);
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks).toString('utf8');
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        queryValues: queryValues(url.searchParams),
        headers: req.headers,
        body: parse(raw),
      };
      this.requests.push(request);
      const reply = this.queue.shift() ?? this.route(request);
      if (reply === 'hang') return;
      if (reply.delayMs) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          send(res, reply);
        }, reply.delayMs);
        this.timers.add(timer);
        return;
      }
      send(res, reply);
    });
  }
}

function queryValues(params: URLSearchParams): Record<string, string[]> {
  const values: Record<string, string[]> = {};
  for (const [name, value] of params) (values[name] ??= []).push(value);
  return values;
}

function parse(raw: string): unknown {
  if (raw === '') return '';
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function send(res: ServerResponse, reply: Exclude<FakeHttpReply, 'hang'>): void {
  if (res.destroyed || res.writableEnded) return;
  const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    ...reply.headers,
  });
  res.end(payload);
}
