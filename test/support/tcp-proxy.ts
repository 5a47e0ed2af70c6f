import { AddressInfo, createServer, Server, Socket, connect } from 'node:net';

/**
 * A loopback TCP proxy in front of PostgreSQL, so that a test can take the database away from the
 * service (every connection reset, new ones refused) and give it back, without stopping the
 * PostgreSQL server that other tests and CI share.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  /** Sockets whose bytes go nowhere, as through a NAT that forgot the connection. */
  private readonly stalled = new Set<Socket>();
  private accepting = true;

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, target);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** For a PostgreSQL URL, a proxy to its host and port, and the same URL pointed through it. */
  static async forDatabaseUrl(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
    const url = new URL(databaseUrl);
    const proxy = await TcpProxy.start({
      host: url.hostname || '127.0.0.1',
      port: Number(url.port || 5432),
    });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    return { proxy, url: url.toString() };
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The outage: every open connection is reset and new ones are refused until `restore`. */
  cut(): void {
    this.accepting = false;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /**
   * Every open connection stops carrying bytes without being closed, as a NAT that forgot it
   * would do; new connections go through.
   */
  stall(): void {
    for (const socket of this.sockets) this.stalled.add(socket);
  }

  restore(): void {
    this.accepting = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (!this.accepting) {
      client.destroy();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        this.stalled.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (!this.stalled.has(from)) to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
  }
}
