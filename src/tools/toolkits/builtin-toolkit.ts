import { IsOptional, IsUrl } from 'class-validator';
import * as path from 'node:path';
import { Clock } from '../../common/clock';
import { Env, EnvGroup } from '../../config/env-declaration';
import { readEnvironment } from '../../config/environment';
import type { ToolkitSource } from '../catalog/toolkit-file.schema';
import { ToolExecutor } from '../execution/tool-executor';
import { ProviderHttpClient } from './provider-http.client';

/** What every toolkit's executors may use, shared by all of them. */
export interface ToolkitServices {
  /** Outbound HTTP to the providers, with the tool time-out and a keep-alive pool. */
  http: ProviderHttpClient;
  clock: Clock;
}

/** Executors by exact qualified tool name (`Weather.GetCurrent`). */
export type ToolkitExecutors = Record<string, ToolExecutor>;

/**
 * A module of CPU-bound executors run in ToolsModule's worker threads (a WorkerPool): it
 * exports WORKER_TOOL_EXECUTORS and loads without Nest.
 */
export interface ToolkitWorkerModule {
  /** The module's `__filename`. */
  file: string;
  executors: Readonly<ToolkitExecutors>;
}

/** A toolkit whose environment has been read and checked: it only has to be given its services. */
export interface ConfiguredToolkit {
  name: string;
  worker?: ToolkitWorkerModule;
  executors(services: ToolkitServices): ToolkitExecutors;
}

/** One built-in toolkit: its data file, the environment it reads, and its executors. */
export interface BuiltinToolkit {
  name: string;
  /** The toolkit data file (catalog format, docs/toolkits.md), checked when the catalog loads. */
  source: ToolkitSource;
  /** Reads the toolkit's variables from `env`; throws ConfigError naming a bad one. */
  configure(env: NodeJS.ProcessEnv): ConfiguredToolkit;
}

export interface ToolkitDescription<Environment extends object, Config> {
  name: string;
  /** `__dirname` of the toolkit's folder and the data file's parsed content. */
  source: { dir: string; file: string; data: unknown };
  /**
   * A class-validator class of the variables the toolkit reads, with their defaults, each with
   * `@Env` and the class in `@EnvGroup(BUILTIN_TOOLKITS_ENV_GROUP)` (docs/configuration.md).
   */
  environment?: new () => Environment;
  /** Its configuration, from the checked variables. */
  config?: (vars: Environment) => Config;
  /** CPU-bound executors to run in worker threads instead of on the event loop. */
  worker?: ToolkitWorkerModule;
  /** The executors that run on the event loop (I/O or constant work). */
  executors?: (config: Config, services: ToolkitServices) => ToolkitExecutors;
}

/** Describes a built-in toolkit; list it in BUILTIN_TOOLKITS (./index.ts). */
export function defineToolkit<Environment extends object = object, Config = undefined>(
  toolkit: ToolkitDescription<Environment, Config>,
): BuiltinToolkit {
  const { name, worker, environment, executors } = toolkit;
  return {
    name,
    source: { file: path.join(toolkit.source.dir, toolkit.source.file), data: toolkit.source.data },
    configure(env) {
      const vars = environment ? readEnvironment(environment, env) : ({} as Environment);
      const config = toolkit.config ? toolkit.config(vars) : (undefined as Config);
      return {
        name,
        ...(worker && { worker }),
        executors: (services) => (executors ? executors(config, services) : {}),
      };
    },
  };
}

/** A provider base URL as the executors join paths to it: without a trailing slash. */
export const baseUrl = (url: string): string => url.replace(/\/+$/, '');

/** The heading of the built-in toolkits' variables in .env.example and README. */
export const BUILTIN_TOOLKITS_ENV_GROUP = 'Built-in toolkits';

/**
 * The one setting of a toolkit that calls a provider (`provider` names it): its base URL, read
 * from `variable` (tests point it at a fake), checked as a URL at boot, handed to the executors
 * without a trailing slash.
 */
export function providerUrl<V extends string>(variable: V, defaultUrl: string, provider: string) {
  class ProviderUrlEnvironment {
    constructor() {
      Object.assign(this, { [variable]: defaultUrl });
    }
  }
  Env(
    `Base URL of the ${provider} API that the built-in toolkit calls ([docs/tool-execution.md](docs/tool-execution.md)).`,
  )(ProviderUrlEnvironment.prototype, variable);
  IsOptional()(ProviderUrlEnvironment.prototype, variable);
  IsUrl({ require_tld: false, protocols: ['http', 'https'] })(
    ProviderUrlEnvironment.prototype,
    variable,
  );
  EnvGroup(BUILTIN_TOOLKITS_ENV_GROUP)(ProviderUrlEnvironment);
  return {
    environment: ProviderUrlEnvironment as unknown as new () => Record<V, string>,
    config: (vars: Record<V, string>) => baseUrl(vars[variable]),
  };
}
