import { defineToolkit, providerUrl } from '../builtin-toolkit';
import { slackExecutors } from './slack.executors';
import data from './toolkit.json';

export const slackToolkit = defineToolkit({
  name: 'Slack',
  source: { dir: __dirname, file: 'toolkit.json', data },
  // Slack's Web API; SLACK_API_URL points it elsewhere (tests: a fake).
  ...providerUrl('SLACK_API_URL', 'https://slack.com/api', 'Slack Web'),
  executors: (url, { http }) => slackExecutors(http, url),
});
