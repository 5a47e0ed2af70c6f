import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { agentEventProblems } from './agent-event-schemas';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
}

export type Reply = number | 'hang' | 'destroy';

/**
 * The agent's events endpoint: a real server on loopback that keeps the exact bytes it got, and
 * checks each body against the event schemas of openapi.json (reading events fails on a mismatch).
 */
export class FakeAgentEndpoint {
  readonly received: Received[] = [];
  /** Bodies that do not match their documented schema, with what is wrong. */
  readonly undocumented: string[] = [];
  private readonly replies: Reply[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeAgentEndpoint> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const fake = new FakeAgentEndpoint(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/agent/events`,
    );
    server.on('connection', (socket: Socket) => {
      fake.sockets.add(socket);
      socket.once('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        fake.received.push({ headers: req.headers, raw });
        try {
          fake.undocumented.push(...agentEventProblems(JSON.parse(raw)));
        } catch {
          fake.undocumented.push(`not JSON: ${raw.slice(0, 200)}`);
        }
        const reply = fake.replies.shift() ?? 204;
        if (reply === 'hang') return;
        if (reply === 'destroy') {
          req.socket.destroy();
          return;
        }
        res.statusCode = reply;
        res.end();
      });
    });
    return fake;
  }

  enqueue(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  /** What arrived for events of this type, parsed; throws when an event is not as documented. */
  events(type: string) {
    if (this.undocumented.length > 0) {
      throw new Error(
        `agent events do not match openapi.json's webhooks (run \`npm run openapi\` after changing their DTOs):\n${this.undocumented.join('\n')}`,
      );
    }
    return this.received
      .map((r) => ({ ...r, body: JSON.parse(r.raw) as Record<string, unknown> }))
      .filter((r) => r.body.type === type);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
