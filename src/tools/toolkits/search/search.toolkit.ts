import { defineToolkit, providerUrl } from '../builtin-toolkit';
import { serpApiExecutors } from './serpapi.executors';
import data from './toolkit.json';

export const searchToolkit = defineToolkit({
  name: 'Search',
  source: { dir: __dirname, file: 'toolkit.json', data },
  // SerpApi; SERPAPI_API_URL points it elsewhere (tests: a fake).
  ...providerUrl('SERPAPI_API_URL', 'https://serpapi.com', 'SerpApi search'),
  executors: (url, { http }) => serpApiExecutors(http, url),
});
