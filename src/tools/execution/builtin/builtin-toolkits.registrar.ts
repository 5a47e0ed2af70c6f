import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../../common/clock';
import { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ToolExecutor } from '../tool-executor';
import { ToolExecutorRegistry } from '../tool-executor.registry';
import { githubExecutors } from './github/github.executors';
import { gmailExecutors } from './google/gmail.executors';
import { googleCaller } from './google/google-api';
import { googleCalendarExecutors } from './google/google-calendar.executors';
import { calculate, statistics } from './math/math.executors';
import { ProviderHttpClient } from './provider-http.client';
import { serpApiExecutors } from './search/serpapi.executors';
import { slackExecutors } from './slack/slack.executors';
import { changeCase, countWords } from './text/text.executors';
import { convertTimeZone, currentTime } from './time/time.executors';
import { openWeatherExecutors } from './weather/openweather.executors';

/** Every executor of the toolkits in catalog/toolkits/ (except Agentline, which Scheduler owns). */
export function builtinToolExecutors(
  http: ProviderHttpClient,
  providers: AppConfig['toolProviders'],
  clock: Clock,
): Record<string, ToolExecutor> {
  const google = googleCaller(http, providers.googleUrl);
  return {
    'Math.Calculate': calculate,
    'Math.Statistics': statistics,
    'Time.CurrentTime': currentTime(clock),
    'Time.ConvertTimeZone': convertTimeZone,
    'Text.CountWords': countWords,
    'Text.ChangeCase': changeCase,
    ...openWeatherExecutors(http, providers.openWeatherUrl),
    ...serpApiExecutors(http, providers.serpApiUrl),
    ...githubExecutors(http, providers.githubUrl),
    ...slackExecutors(http, providers.slackUrl),
    ...gmailExecutors(google),
    ...googleCalendarExecutors(google, clock),
  };
}

/** Registers the built-in executors at boot and closes their HTTP pool at shutdown. */
@Injectable()
export class BuiltinToolkitsRegistrar implements OnModuleInit, OnApplicationShutdown {
  private readonly http: ProviderHttpClient;

  constructor(
    private readonly registry: ToolExecutorRegistry,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.http = new ProviderHttpClient({ timeoutMs: config.toolExecution.timeoutMs });
  }

  onModuleInit(): void {
    const executors = builtinToolExecutors(this.http, this.config.toolProviders, this.clock);
    for (const [name, executor] of Object.entries(executors))
      this.registry.register(name, executor);
  }

  onApplicationShutdown(): Promise<void> {
    return this.http.close();
  }
}
