import { defineToolkit, providerUrl } from '../builtin-toolkit';
import { githubExecutors } from './github.executors';
import data from './toolkit.json';

export const githubToolkit = defineToolkit({
  name: 'Github',
  source: { dir: __dirname, file: 'toolkit.json', data },
  // GitHub's REST API; GITHUB_API_URL points it elsewhere (tests: a fake).
  ...providerUrl('GITHUB_API_URL', 'https://api.github.com', 'GitHub REST'),
  executors: (url, { http }) => githubExecutors(http, url),
});
