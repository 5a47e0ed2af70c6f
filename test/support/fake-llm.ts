import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeChatMessage {
  role: string;
  content: string;
}

/** One chat-completions call as the fake received it. */
export interface FakeLlmRequest {
  model: string;
  messages: FakeChatMessage[];
  /** The raw Authorization header, if any. */
  authorization: string | undefined;
  temperature?: number;
  maxTokens?: number;
  /** The whole parsed request body, for anything else a test wants to check. */
  body: Record<string, unknown>;
}

/**
 * A scripted answer: `{content}` for a normal completion, a raw status/body, or a failure:
 * 'hang' (never answers), 'destroy' (drops the socket), 'garbage' (200 with non-JSON),
 * 'empty-choices' (200 with `choices: []`).
 */
export type FakeLlmReply =
  | { content: string; delayMs?: number }
  | {
      status: number;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  | 'hang'
  | 'destroy'
  | 'garbage'
  | 'empty-choices';

export type FakeLlmContent = (request: FakeLlmRequest) => string;

/** Default: something derived from the user message, so tests can tell replies apart. */
export const echoContent: FakeLlmContent = (request) => {
  const user = [...request.messages].reverse().find((message) => message.role === 'user');
  const firstLine = (user?.content ?? '').split('\n')[0].trim().slice(0, 200);
  return `Hello! ${firstLine}`;
};

/** A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible chat-completions endpoint. */
export class FakeLlm {
  readonly requests: FakeLlmRequest[] = [];

  private readonly queue: FakeLlmReply[] = [];
  private content: FakeLlmContent = echoContent;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private counter = 0;

  private constructor(
    private readonly server: Server,
    /** Base URL like AGENT_LLM_URL, e.g. http://127.0.0.1:PORT/v1 */
    readonly url: string,
  ) {}

  static async start(): Promise<FakeLlm> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const fake = new FakeLlm(server, `http://127.0.0.1:${port}/v1`);
    server.on('connection', (socket: Socket) => {
      fake.sockets.add(socket);
      socket.once('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => fake.handle(req, res));
    return fake;
  }

  /** Sets how normal completions are written; undefined restores the echo. */
  setContent(content: FakeLlmContent | undefined): void {
    this.content = content ?? echoContent;
  }

  /** Script the next replies (FIFO), then normal completions. */
  enqueue(...replies: FakeLlmReply[]): void {
    this.queue.push(...replies);
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.content = echoContent;
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
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => this.answer(req, res, Buffer.concat(chunks).toString('utf8')));
  }

  private answer(req: IncomingMessage, res: ServerResponse, raw: string): void {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return send(res, 404, openAiError('Not found', 'invalid_request_error'));
    }
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new Error('not an object');
      }
      body = parsed as Record<string, unknown>;
    } catch {
      return send(
        res,
        400,
        openAiError('We could not parse the JSON body', 'invalid_request_error'),
      );
    }
    const messages = parseMessages(body.messages);
    if (typeof body.model !== 'string' || !messages) {
      return send(
        res,
        400,
        openAiError('model and messages are required', 'invalid_request_error'),
      );
    }
    const request: FakeLlmRequest = {
      model: body.model,
      messages,
      authorization: req.headers.authorization,
      temperature: typeof body.temperature === 'number' ? body.temperature : undefined,
      maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
      body,
    };
    this.requests.push(request);

    const reply = this.queue.shift() ?? { content: this.content(request) };
    if (reply === 'hang') {
      return;
    }
    if (reply === 'destroy') {
      req.socket.destroy();
      return;
    }
    if (reply === 'garbage') {
      return send(res, 200, undefined, '{"id": "chatcmpl-', { 'content-type': 'application/json' });
    }
    if (reply === 'empty-choices') {
      return send(res, 200, this.completion(request, null));
    }
    const deliver = (): void => {
      if ('content' in reply) {
        send(res, 200, this.completion(request, reply.content));
      } else {
        send(res, reply.status, reply.body, reply.rawBody, reply.headers);
      }
    };
    if (reply.delayMs && reply.delayMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        deliver();
      }, reply.delayMs);
      this.timers.add(timer);
      return;
    }
    deliver();
  }

  private completion(request: FakeLlmRequest, content: string | null): Record<string, unknown> {
    this.counter += 1;
    const promptTokens = request.messages.reduce(
      (sum, message) => sum + Math.ceil(message.content.length / 4),
      0,
    );
    const completionTokens = content === null ? 0 : Math.ceil(content.length / 4);
    return {
      id: `chatcmpl-${randomBytes(6).toString('hex')}${this.counter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices:
        content === null
          ? []
          : [
              {
                index: 0,
                message: { role: 'assistant', content },
                finish_reason: 'stop',
              },
            ],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    };
  }
}

/** OpenAI's error body. */
export function openAiError(
  message: string,
  type: string,
  code: string | null = null,
): { error: { message: string; type: string; param: null; code: string | null } } {
  return { error: { message, type, param: null, code } };
}

function parseMessages(value: unknown): FakeChatMessage[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    return undefined;
  }
  const messages: FakeChatMessage[] = [];
  for (const item of value) {
    const message = item as Partial<FakeChatMessage> | null;
    if (typeof message?.role !== 'string' || typeof message.content !== 'string') {
      return undefined;
    }
    messages.push({ role: message.role, content: message.content });
  }
  return messages;
}

function send(
  res: ServerResponse,
  status: number,
  body?: unknown,
  rawBody?: string,
  extraHeaders: Record<string, string> = {},
): void {
  if (res.destroyed || res.writableEnded) {
    return;
  }
  const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers: Record<string, string> = {
    'content-type':
      rawBody !== undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
  };
  for (const [name, value] of Object.entries(extraHeaders)) {
    headers[name.toLowerCase()] = value;
  }
  if (payload !== undefined) {
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  res.writeHead(status, headers);
  res.end(payload);
}
