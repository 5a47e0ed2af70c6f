import { Client, ClientConfig } from 'pg';

export interface DedicatedConnectionOptions {
  /** How the connection shows in pg_stat_activity. */
  applicationName: string;
  /** More client settings (time-outs). */
  config?: Omit<ClientConfig, 'connectionString' | 'application_name'>;
  /** Runs on each new connection before it is handed out (a lock to take); a failure drops it. */
  prepare?: (client: Client) => Promise<unknown>;
  /** Called once when a connection that was handed out is lost; with the error if there was one. */
  onLost?: (error?: Error) => void;
}

/**
 * A PostgreSQL connection of this process's own, outside the TypeORM pool: what runs on it never
 * waits for a pool connection, and what holds it (a session lock) lives as long as its session.
 * Opened on demand and opened again after it is lost (an error, the server ending it, `drop`).
 */
export class DedicatedConnection {
  private client?: Client;
  private opening?: Promise<Client | undefined>;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly options: DedicatedConnectionOptions,
  ) {}

  /** The open connection, if there is one now. */
  get current(): Client | undefined {
    return this.client;
  }

  /** The open connection, opened first if needed; undefined once closed. Callers share one opening. */
  open(): Promise<Client | undefined> {
    if (this.client || this.closed) return Promise.resolve(this.client);
    this.opening ??= this.connect().finally(() => (this.opening = undefined));
    return this.opening;
  }

  /** Ends the connection (one that may be stuck); the next `open` makes a new one. */
  drop(): void {
    const client = this.client;
    this.client = undefined;
    void client?.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.opening?.catch(() => undefined);
    this.drop();
  }

  private async connect(): Promise<Client | undefined> {
    const client = new Client({
      ...this.options.config,
      connectionString: this.url,
      application_name: this.options.applicationName,
    });
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.options.onLost?.(error);
    };
    // Without a listener an error on an idle client would crash the process.
    client.on('error', (error) => {
      lost(error);
      void client.end().catch(() => undefined);
    });
    client.on('end', () => lost());
    try {
      await client.connect();
      await this.options.prepare?.(client);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return undefined;
    }
    this.client = client;
    return client;
  }
}
