import { SystemClock } from '../../../common/clock';
import { loadToolCatalog } from '../../catalog/tool-catalog';
import { builtinToolExecutors } from './builtin-toolkits.registrar';
import { ToolWorkerPool } from '../worker-pool/tool-worker.pool';
import { ProviderHttpClient } from './provider-http.client';

describe('builtinToolExecutors', () => {
  const http = new ProviderHttpClient({ timeoutMs: 1000 });
  afterAll(() => http.close());
  const executors = builtinToolExecutors(
    http,
    {
      openWeatherUrl: 'http://127.0.0.1:9',
      serpApiUrl: 'http://127.0.0.1:9',
      googleUrl: 'http://127.0.0.1:9',
      githubUrl: 'http://127.0.0.1:9',
      slackUrl: 'http://127.0.0.1:9',
    },
    new SystemClock(),
    new ToolWorkerPool(1, []),
  );

  it('names only tools of the catalog, by their exact qualified names', () => {
    const catalog = loadToolCatalog();
    for (const name of Object.keys(executors)) {
      expect(catalog.find(name)?.qualifiedName).toBe(name);
    }
  });

  it('covers every tool of the built-in toolkits except Agentline', () => {
    const { items } = loadToolCatalog().list({ offset: 0, limit: 1000 });
    const builtin = items
      .filter((spec) => spec.toolkit.name !== 'Agentline' && spec.origin?.kind !== 'mcp')
      .map((spec) => spec.qualifiedName);
    expect(Object.keys(executors).sort()).toEqual([...builtin].sort());
  });
});
