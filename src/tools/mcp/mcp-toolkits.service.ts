import { Metrics } from '../../metrics';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AgentToolChanges } from '../agent-tool-changes';
import { ToolCatalog } from '../catalog/tool-catalog';
import { McpCallError, toMcpCallError } from './mcp-call.error';
import { McpServerConfig } from './mcp-server.config';
import { McpServerConnection } from './mcp-server.connection';
import { McpCallOutcome, toCallOutcome, toMcpArguments, toMcpToolkit } from './mcp-tool.mapper';
import { TOOLS_CONFIG, ToolsConfig } from '../tools.config';

/** `connecting`: first attempt under way; `unavailable`: it failed or broke, retries are scheduled. */
export type McpServerState = 'connecting' | 'connected' | 'unavailable' | 'closed';

/** What an operator (or a test) can see of one configured server; never its secrets. */
export interface McpServerStatus {
  id: string;
  transport: McpServerConfig['transport'];
  state: McpServerState;
  /** The toolkit its tools are listed under, once the catalog accepted it. */
  toolkit?: string;
  tools: number;
  lastError?: string;
}

interface ServerEntry {
  config: McpServerConfig;
  state: McpServerState;
  connection?: McpServerConnection;
  /** Per MCP tool name: catalog parameter name → the tool's property name. */
  argumentNames: ReadonlyMap<string, ReadonlyMap<string, string>>;
  toolkit?: string;
  tools: number;
  lastError?: string;
  failures: number;
  retryTimer?: NodeJS.Timeout;
  refreshing?: Promise<void>;
  refreshAgain: boolean;
}

// Boot waits this long for the first connections so that the catalog is complete when the
// service starts listening; a slow server joins the catalog later instead of holding boot up.
const BOOT_WAIT_MS = 10_000;
/** Time-out of initialize and tools/list when the server sets no `timeout_ms`. */
const DEFAULT_LIST_TIMEOUT_MS = 30_000;
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/**
 * Keeps one MCP session per configured server and publishes each server's tools as a toolkit
 * in the catalog (source `mcp:<id>`), refreshed every MCP_REFRESH_MS and whenever the server
 * sends tools/list_changed. A server that cannot be reached never stops the service: it is
 * retried with back-off, and its last known tools stay listed (calls then fail `mcp_unavailable`).
 */
@Injectable()
export class McpToolkits implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(McpToolkits.name);
  private readonly servers = new Map<string, ServerEntry>();
  private refreshTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(TOOLS_CONFIG) private readonly config: ToolsConfig,
    private readonly catalog: ToolCatalog,
    metrics: Metrics,
    private readonly changes: AgentToolChanges,
  ) {
    metrics.processGauge(
      'agentline_mcp_server_up',
      'Configured MCP servers: 1 while connected, else 0.',
      ['server'],
      (gauge) => {
        for (const server of this.status()) {
          gauge.set({ server: server.id }, server.state === 'connected' ? 1 : 0);
        }
      },
    );
    for (const server of config.mcp.servers) {
      this.servers.set(server.id, {
        config: server,
        state: 'connecting',
        argumentNames: new Map(),
        tools: 0,
        failures: 0,
        refreshAgain: false,
      });
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.servers.size === 0) return;
    const first = Promise.allSettled([...this.servers.values()].map((s) => this.connect(s)));
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, BOOT_WAIT_MS);
    });
    await Promise.race([first, patience]);
    clearTimeout(timer);
    this.refreshTimer = setInterval(() => {
      this.refresh().catch((err: unknown) => {
        this.logger.error(`Refreshing the MCP toolkits failed: ${reasonOf(err)}`);
      });
    }, this.config.mcp.refreshMs);
    this.refreshTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.refreshTimer);
    const closing: Promise<void>[] = [];
    for (const entry of this.servers.values()) {
      clearTimeout(entry.retryTimer);
      entry.state = 'closed';
      if (entry.connection) closing.push(entry.connection.close());
      entry.connection = undefined;
    }
    await Promise.allSettled(closing);
  }

  /**
   * Calls `tool` (its original MCP name, `origin.tool` of the spec) on the server with id
   * `server` (`origin.server`). `input` may use the catalog's parameter names or the tool's own.
   * The time-out is `options.timeoutMs`, or the server's `timeout_ms` when that is shorter.
   * Answers `{ value }` or, when the tool reports failure (`isError`), `{ error }`; throws
   * `McpCallError` (`mcp_timeout`, `mcp_unavailable`, `mcp_error`) when there is no answer.
   */
  async call(
    server: string,
    tool: string,
    input: Record<string, unknown>,
    options: { timeoutMs: number },
  ): Promise<{ value: unknown } | { error: string }> {
    const entry = this.servers.get(server);
    if (entry === undefined) {
      throw new McpCallError('mcp_unavailable', `No MCP server "${server}" is configured`);
    }
    const connection = entry.connection;
    if (entry.state !== 'connected' || connection === undefined) {
      const why = entry.lastError === undefined ? '' : `: ${entry.lastError}`;
      throw new McpCallError('mcp_unavailable', `MCP server "${server}" is not connected${why}`);
    }
    const args = toMcpArguments(input, entry.argumentNames.get(tool));
    const timeoutMs = Math.min(options.timeoutMs, entry.config.timeoutMs ?? options.timeoutMs);
    let outcome: McpCallOutcome;
    try {
      outcome = toCallOutcome(await connection.callTool(tool, args, timeoutMs));
    } catch (err: unknown) {
      const error = toMcpCallError(err, server);
      if (error.code === 'mcp_unavailable') this.connectionLost(entry, connection, reasonOf(err));
      throw error;
    }
    return outcome;
  }

  /** Lists the tools of one server (or of every connected one) again, now. */
  async refresh(server?: string): Promise<void> {
    const entries = server === undefined ? [...this.servers.values()] : [this.servers.get(server)];
    await Promise.all(entries.map((entry) => entry && this.requestRefresh(entry)));
  }

  status(): McpServerStatus[] {
    return [...this.servers.values()].map((entry) => ({
      id: entry.config.id,
      transport: entry.config.transport,
      state: entry.state,
      ...(entry.toolkit !== undefined && { toolkit: entry.toolkit }),
      tools: entry.tools,
      ...(entry.lastError !== undefined && { lastError: entry.lastError }),
    }));
  }

  private async connect(entry: ServerEntry): Promise<void> {
    if (this.stopped) return;
    const { id } = entry.config;
    // A retry keeps reporting `unavailable` (with its last error) until it succeeds.
    if (entry.state !== 'unavailable') entry.state = 'connecting';
    entry.refreshAgain = false;
    let connection: McpServerConnection | undefined;
    try {
      connection = await McpServerConnection.open(
        entry.config,
        this.listTimeout(entry),
        {
          onToolListChanged: () => void this.requestRefresh(entry),
          onClosed: () => connection && this.connectionLost(entry, connection, 'connection closed'),
        },
        this.logger,
      );
      if (!this.stopped) await this.loadTools(entry, connection);
      // Shut down while this attempt was under way: nobody else will close it.
      if (this.stopped) {
        await connection.close();
        return;
      }
    } catch (err: unknown) {
      await connection?.close().catch(() => undefined);
      this.scheduleReconnect(entry, reasonOf(err));
      return;
    }
    entry.connection = connection;
    entry.state = 'connected';
    entry.failures = 0;
    this.logger.log(
      `Connected to MCP server "${id}" (${entry.config.transport}): ` +
        (entry.toolkit === undefined
          ? `no tool joined the catalog${entry.lastError === undefined ? '' : ` (${entry.lastError})`}`
          : `toolkit "${entry.toolkit}" with ${entry.tools} tools`),
    );
    // A change announced while the first list was in flight.
    if (entry.refreshAgain) void this.requestRefresh(entry);
  }

  /** Serialised per server; requests that arrive meanwhile collapse into one more round. */
  private requestRefresh(entry: ServerEntry): Promise<void> {
    if (entry.state !== 'connected') {
      entry.refreshAgain = true;
      return Promise.resolve();
    }
    if (entry.refreshing !== undefined) {
      entry.refreshAgain = true;
      return entry.refreshing;
    }
    entry.refreshing = this.refreshRounds(entry).finally(() => {
      entry.refreshing = undefined;
    });
    return entry.refreshing;
  }

  private async refreshRounds(entry: ServerEntry): Promise<void> {
    do {
      entry.refreshAgain = false;
      const connection = entry.connection;
      if (entry.state !== 'connected' || connection === undefined || this.stopped) return;
      try {
        await this.loadTools(entry, connection);
      } catch (err: unknown) {
        if (toMcpCallError(err, entry.config.id).code === 'mcp_unavailable') {
          this.connectionLost(entry, connection, reasonOf(err));
        } else {
          entry.lastError = reasonOf(err);
          this.logger.warn(
            `Could not refresh the tools of MCP server "${entry.config.id}" (${entry.lastError}); keeping the last list`,
          );
        }
        return;
      }
    } while (entry.refreshAgain);
  }

  private async loadTools(entry: ServerEntry, connection: McpServerConnection): Promise<void> {
    const tools = await connection.listTools(this.listTimeout(entry));
    if (this.stopped) return;
    const mapping = toMcpToolkit(entry.config, connection.identity, tools);
    for (const { tool, reason } of mapping.skipped) {
      this.logger.debug(`MCP server "${entry.config.id}": tool "${tool}" left out: ${reason}`);
    }
    const generation = this.catalog.generation;
    const published = this.catalog.setDynamicToolkits(
      `mcp:${entry.config.id}`,
      mapping.toolkit === undefined ? [] : [mapping.toolkit],
    );
    // A tool of the server's that an agent holds may have changed or gone.
    if (this.catalog.generation !== generation) this.changes.catalogChanged();
    entry.argumentNames = mapping.argumentNames;
    entry.toolkit = published.accepted[0];
    entry.tools = entry.toolkit === undefined ? 0 : (mapping.toolkit?.tools.length ?? 0);
    // A listing that worked clears older errors; a refused toolkit is the error now.
    const refused = published.skipped[0];
    entry.lastError =
      refused === undefined
        ? undefined
        : `toolkit "${refused.toolkit}" was not added to the catalog: ${refused.reason}`;
  }

  private connectionLost(
    entry: ServerEntry,
    connection: McpServerConnection,
    reason: string,
  ): void {
    if (entry.connection !== connection || this.stopped) return;
    entry.connection = undefined;
    void connection.close().catch(() => undefined);
    this.scheduleReconnect(entry, reason);
  }

  private scheduleReconnect(entry: ServerEntry, reason: string): void {
    if (this.stopped) return;
    entry.state = 'unavailable';
    entry.lastError = reason;
    entry.failures += 1;
    const ceiling = Math.min(RETRY_MAX_MS, this.config.mcp.refreshMs);
    const delay = Math.min(ceiling, RETRY_BASE_MS * 2 ** Math.min(entry.failures - 1, 16));
    this.logger.warn(
      `MCP server "${entry.config.id}" is unavailable (${reason}); retrying in ${Math.round(delay / 1000)} s`,
    );
    clearTimeout(entry.retryTimer);
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      void this.connect(entry);
    }, delay);
    entry.retryTimer.unref();
  }

  private listTimeout(entry: ServerEntry): number {
    return entry.config.timeoutMs ?? DEFAULT_LIST_TIMEOUT_MS;
  }
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
