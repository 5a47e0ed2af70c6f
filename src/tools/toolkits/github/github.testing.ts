import { filled, ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  variablePrefix: 'GITHUB_API_',
  provider: { urlVariable: 'GITHUB_API_URL' },
  worstInputs: {
    'Github.CreateIssue': () => ({
      owner: filled('o', 39),
      repo: filled('r', 100),
      title: filled('t', 256),
      body: filled('# body\n', 65_536),
      labels: Array.from({ length: 100 }, (_, i) => filled(`l${i}`, 50)),
      assignees: Array.from({ length: 10 }, (_, i) => filled(`a${i}`, 39)),
    }),
    'Github.ListPullRequests': () => ({ owner: 'octo', repo: 'hello', per_page: 100 }),
    'Github.SearchRepositories': () => ({ query: filled('nestjs ', 256), per_page: 100 }),
  },
};
