import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { WorkerPool } from '../../common/worker-pool/worker-pool';
import { Metrics } from '../../metrics';
import { ToolExecutorRegistry } from '../execution/tool-executor.registry';
import { workerToolExecutor } from '../execution/worker-tool-executor';
import { TOOLS_CONFIG, ToolsConfig } from '../tools.config';
import { ConfiguredToolkit, ToolkitExecutors, ToolkitServices } from './builtin-toolkit';
import { ProviderHttpClient } from './provider-http.client';

/**
 * Every executor of `toolkits`: their worker modules' executors run in `pool`'s threads, the
 * rest (I/O, or constant work on bounded input) on the event loop.
 */
export function builtinToolExecutors(
  toolkits: readonly ConfiguredToolkit[],
  services: ToolkitServices,
  pool: WorkerPool,
): ToolkitExecutors {
  const executors: ToolkitExecutors = {};
  for (const toolkit of toolkits) {
    for (const name of Object.keys(toolkit.worker?.executors ?? {})) {
      executors[name] = workerToolExecutor(pool, name);
    }
    Object.assign(executors, toolkit.executors(services));
  }
  return executors;
}

/** The worker modules of `toolkits`, loaded by each worker thread. */
export function workerModules(toolkits: readonly ConfiguredToolkit[]): string[] {
  return toolkits.flatMap((toolkit) => (toolkit.worker ? [toolkit.worker.file] : []));
}

/**
 * Registers the built-in toolkits' executors (src/tools/toolkits/) at boot, once their worker
 * threads are loaded, and closes their HTTP pool and worker threads at shutdown.
 */
@Injectable()
export class BuiltinToolkitsRegistrar implements OnModuleInit, OnApplicationShutdown {
  private readonly http: ProviderHttpClient;
  private readonly pool: WorkerPool;

  constructor(
    private readonly registry: ToolExecutorRegistry,
    private readonly clock: Clock,
    @Inject(TOOLS_CONFIG) private readonly config: ToolsConfig,
    metrics: Metrics,
  ) {
    this.http = new ProviderHttpClient({ timeoutMs: config.toolExecution.timeoutMs });
    this.pool = new WorkerPool(config.toolExecution.workerThreads, workerModules(config.toolkits), {
      name: 'tools',
      ...metrics.workerPoolEvents('tools'),
    });
  }

  onModuleInit(): void {
    const services = { http: this.http, clock: this.clock };
    const executors = builtinToolExecutors(this.config.toolkits, services, this.pool);
    for (const [name, executor] of Object.entries(executors))
      this.registry.register(name, executor);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.http.close(), this.pool.close()]);
  }
}
