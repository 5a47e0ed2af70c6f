import { SystemClock } from '../../common/clock';
import { WorkerPool } from '../../common/worker-pool/worker-pool';
import { validateToolkitSources } from '../catalog/tool-catalog.loader';
import { builtinToolExecutors, workerModules } from './builtin-toolkits.registrar';
import { BUILTIN_TOOLKITS } from '.';
import { ProviderHttpClient } from './provider-http.client';

describe('the built-in toolkits', () => {
  const http = new ProviderHttpClient({ timeoutMs: 1000 });
  afterAll(() => http.close());
  const services = { http, clock: new SystemClock() };
  const pool = new WorkerPool(1, []);
  afterAll(() => pool.close());

  it.each(BUILTIN_TOOLKITS.map((toolkit) => [toolkit.name, toolkit] as const))(
    '%s: its data file is valid, and it has an executor for each of its tools, no more',
    (name, toolkit) => {
      const [definition] = validateToolkitSources([toolkit.source]);
      expect(definition.name).toBe(name);
      const configured = toolkit.configure({});
      const executors = builtinToolExecutors([configured], services, pool);
      expect(Object.keys(executors).sort()).toEqual(
        definition.tools.map((tool) => `${name}.${tool.name}`).sort(),
      );
    },
  );

  it('runs the CPU-bound ones in worker threads, each module once', () => {
    const modules = workerModules(BUILTIN_TOOLKITS.map((toolkit) => toolkit.configure({})));
    expect(modules.length).toBeGreaterThanOrEqual(2);
    expect(new Set(modules).size).toBe(modules.length);
  });
});
