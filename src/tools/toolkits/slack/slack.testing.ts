import { filled, ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  variablePrefix: 'SLACK_API_',
  // Slack's base URL has a path (https://slack.com/api): a fake serves under it too.
  provider: { urlVariable: 'SLACK_API_URL', path: '/api' },
  worstInputs: {
    'Slack.SendMessage': () => ({ channel: 'C08GENERAL01', text: filled('hi ', 40_000) }),
    'Slack.ListChannels': () => ({ limit: 1000 }),
  },
};
