import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ToolExecutor } from '../tool-executor';
import { ToolExecutorRegistry } from '../tool-executor.registry';
import { CPU_TOOLS_MODULE, WORKER_TOOL_EXECUTORS } from '../worker-pool/cpu-tool-executors';
import { ToolWorkerPool } from '../worker-pool/tool-worker.pool';
import { githubExecutors } from './github/github.executors';
import { gmailExecutors } from './google/gmail.executors';
import { googleCaller } from './google/google-api';
import { googleCalendarExecutors } from './google/google-calendar.executors';
import { ProviderHttpClient } from './provider-http.client';
import { serpApiExecutors } from './search/serpapi.executors';
import { slackExecutors } from './slack/slack.executors';
import { convertTimeZone, currentTime } from './time/time.executors';
import { openWeatherExecutors } from './weather/openweather.executors';

/**
 * Every executor of the toolkits in catalog/toolkits/ (except Agentline, which Scheduler owns).
 * The CPU-bound ones run in `pool`'s worker threads; the rest wait on I/O or do constant work
 * on bounded input (the Time tools), so they stay on the event loop.
 */
export function builtinToolExecutors(
  http: ProviderHttpClient,
  providers: AppConfig['toolProviders'],
  clock: Clock,
  pool: ToolWorkerPool,
): Record<string, ToolExecutor> {
  const google = googleCaller(http, providers.googleUrl);
  return {
    ...Object.fromEntries(
      Object.keys(WORKER_TOOL_EXECUTORS).map((name) => [name, pool.executor(name)]),
    ),
    'Time.CurrentTime': currentTime(clock),
    'Time.ConvertTimeZone': convertTimeZone,
    ...openWeatherExecutors(http, providers.openWeatherUrl),
    ...serpApiExecutors(http, providers.serpApiUrl),
    ...githubExecutors(http, providers.githubUrl),
    ...slackExecutors(http, providers.slackUrl),
    ...gmailExecutors(google),
    ...googleCalendarExecutors(google, clock),
  };
}

/**
 * Registers the built-in executors at boot, once their worker threads are loaded, and closes
 * their HTTP pool and worker threads at shutdown.
 */
@Injectable()
export class BuiltinToolkitsRegistrar implements OnModuleInit, OnApplicationShutdown {
  private readonly http: ProviderHttpClient;
  private readonly pool: ToolWorkerPool;

  constructor(
    private readonly registry: ToolExecutorRegistry,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.http = new ProviderHttpClient({ timeoutMs: config.toolExecution.timeoutMs });
    this.pool = new ToolWorkerPool(config.toolExecution.workerThreads, [CPU_TOOLS_MODULE]);
  }

  onModuleInit(): void {
    const executors = builtinToolExecutors(
      this.http,
      this.config.toolProviders,
      this.clock,
      this.pool,
    );
    for (const [name, executor] of Object.entries(executors))
      this.registry.register(name, executor);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.http.close(), this.pool.close()]);
  }
}
