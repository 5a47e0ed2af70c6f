import { filled, ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  variablePrefix: 'SERPAPI_',
  provider: { urlVariable: 'SERPAPI_API_URL' },
  worstInputs: {
    'Search.WebSearch': () => ({ query: filled('capital of portugal ', 2048), num_results: 20 }),
    'Search.NewsSearch': () => ({ query: filled('ecb rates ', 2048), num_results: 20 }),
  },
};
