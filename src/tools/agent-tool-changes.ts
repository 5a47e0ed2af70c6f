import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Client, Notification } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { databaseRetryDelayMs } from '../common/backoff';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { DatabaseAvailability } from '../database/database-availability';
import { DedicatedConnection } from '../database/dedicated-connection';

/** The PostgreSQL channel every replica listens on. */
export const TOOL_CHANGES_CHANNEL = 'agentline_tool_changes';

/** How the LISTEN connection shows in pg_stat_activity. */
export const TOOL_CHANGES_APPLICATION_NAME = 'agentline tool changes';

/**
 * Listeners are keyed by a digest of (organization, agent), and so is the notification: its
 * payload stays small whatever the ids' length (NOTIFY takes under 8000 bytes), and names no
 * organization to whoever else may LISTEN on the database.
 */
const agentKey = (organizationId: string, agentId: string): string =>
  createHash('sha256')
    .update(JSON.stringify([organizationId, agentId]))
    .digest('base64url');

/**
 * Tells whoever shows an agent's tools (the MCP server's event streams) that they changed: attached,
 * authorized, failed, removed. Publishers call `publish` once the change is committed, so that a
 * client that lists again sees it.
 *
 * On PostgreSQL a change reaches every replica: `pg_notify` on TOOL_CHANGES_CHANNEL, and one LISTEN
 * connection per process of its own (outside the pool), opened again with backoff when it is lost.
 * NOTIFY is not stored, so after a reconnect every listener of this process is told once that its
 * agent's tools may have changed. A connection dropped without a word (a NAT forgetting it) would
 * leave the process deaf: TCP keep-alive starts after 15 s instead of the OS's hours, and
 * `SELECT 1` runs on it every DATABASE_LISTEN_CHECK_MS; one not answered as long is opened again.
 * The publishing process tells its own listeners at once and skips
 * its own notification when it comes back. On the embedded database there is one process: in-process
 * delivery is all there is.
 */
@Injectable()
export class AgentToolChanges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AgentToolChanges.name);
  private readonly listeners = new Map<string, Set<() => void>>();
  /** This process, in its notifications: the one that sent one has told its listeners already. */
  private readonly origin = randomUUID();
  private connection?: DedicatedConnection;
  private reconnectTimer?: NodeJS.Timeout;
  private failedAttempts = 0;
  private stopped = false;
  private checkTimer?: NodeJS.Timeout;
  private checking = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly availability: DatabaseAvailability,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Listening before the service takes requests: no stream can subscribe before, so the first
   * connection tells no one. One that fails does not stop the boot; it is tried again.
   */
  async onApplicationBootstrap(): Promise<void> {
    const { url } = this.dataSource.options as PostgresConnectionOptions;
    if (!url) return;
    this.connection = new DedicatedConnection(url, {
      applicationName: TOOL_CHANGES_APPLICATION_NAME,
      config: {
        keepAlive: true,
        keepAliveInitialDelayMillis: 15_000,
        connectionTimeoutMillis: 5_000,
      },
      prepare: (client) => this.listen(client),
      onLost: (error) => {
        if (error) {
          // One line, no stack: an outage is reported by DatabaseAvailability already.
          this.logger.warn(
            { reason: error.message },
            'lost the connection that listens for tool changes; listening again',
          );
        }
        this.scheduleConnect(databaseRetryDelayMs(0));
      },
    });
    await this.connect();
    this.checkTimer = setInterval(() => void this.check(), this.config.database.listenCheckMs);
    this.checkTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.checkTimer);
    await this.connection?.close();
  }

  /**
   * Tells the agent's listeners, here and on every replica, that its tools changed. Call it after
   * the change is committed. Never throws: the change stands, and a replica that misses the
   * notification tells its listeners when its LISTEN connection comes back.
   */
  async publish(organizationId: string, agentId: string): Promise<void> {
    const key = agentKey(organizationId, agentId);
    this.deliver(key);
    if (!this.connection) return;
    try {
      await this.dataSource.query('SELECT pg_notify($1, $2)', [
        TOOL_CHANGES_CHANNEL,
        `${this.origin} ${key}`,
      ]);
    } catch (error) {
      if (!this.availability.reportFailure(error)) {
        this.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'could not notify the other replicas of a tool change',
        );
      }
    }
  }

  /**
   * Tells every listener of this process to look again: the catalog this process serves changed
   * (an MCP server's tools, which each replica lists on its own), and any agent's tools may read
   * differently now. Not sent to other replicas: each tells its own listeners when its catalog
   * changes.
   */
  catalogChanged(): void {
    this.deliverToAll();
  }

  /** Calls `listener` whenever the agent's tools change; answers the function that stops it. */
  subscribe(organizationId: string, agentId: string, listener: () => void): () => void {
    const key = agentKey(organizationId, agentId);
    // A wrapper of its own: the same function subscribed twice is two subscriptions.
    const entry = () => listener();
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(entry);
    return () => {
      const current = this.listeners.get(key);
      if (!current?.delete(entry)) return;
      if (current.size === 0) this.listeners.delete(key);
    };
  }

  private async listen(client: Client): Promise<void> {
    client.on('notification', (message: Notification) => this.received(message));
    await client.query(`LISTEN ${TOOL_CHANGES_CHANNEL}`);
  }

  private received(message: Notification): void {
    if (message.channel !== TOOL_CHANGES_CHANNEL) return;
    const [origin, key] = (message.payload ?? '').split(' ');
    if (!key || origin === this.origin) return;
    this.deliver(key);
  }

  private async connect(): Promise<void> {
    if (this.stopped || !this.connection) return;
    try {
      await this.connection.open();
    } catch (error) {
      this.failedAttempts++;
      if (!this.availability.reportFailure(error)) {
        this.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'cannot listen for tool changes; trying again',
        );
      }
      this.scheduleConnect(databaseRetryDelayMs(this.failedAttempts - 1));
      return;
    }
    this.failedAttempts = 0;
    // Whatever was notified while this process was not listening is lost: everyone looks again.
    this.deliverToAll();
  }

  /**
   * `SELECT 1` on the LISTEN connection; one that does not answer within the check's interval is
   * dropped and opened again, and every listener is told once, as after any reconnect.
   */
  private async check(): Promise<void> {
    const client = this.connection?.current;
    if (!client || this.checking || this.stopped) return;
    this.checking = true;
    const limitMs = this.config.database.listenCheckMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.query('SELECT 1'),
        new Promise((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer to SELECT 1 within ${limitMs} ms`)),
            limitMs,
          );
        }),
      ]);
    } catch (error) {
      // Lost meanwhile (onLost reconnects), or another connection already: nothing to do.
      if (this.connection?.current !== client) return;
      this.logger.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'the connection that listens for tool changes does not answer; listening again',
      );
      this.connection.drop();
      this.scheduleConnect(0);
    } finally {
      clearTimeout(timer);
      this.checking = false;
    }
  }

  private scheduleConnect(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
    this.reconnectTimer.unref();
  }

  private deliverToAll(): void {
    for (const key of [...this.listeners.keys()]) this.deliver(key);
  }

  private deliver(key: string): void {
    // A copy: a listener may unsubscribe (its stream closed) while others are told.
    for (const listener of [...(this.listeners.get(key) ?? [])]) {
      try {
        listener();
      } catch (error) {
        this.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'a tool-change listener failed',
        );
      }
    }
  }
}
