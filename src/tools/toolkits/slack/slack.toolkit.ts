import { IsOptional, IsUrl } from 'class-validator';
import { baseUrl, defineToolkit } from '../builtin-toolkit';
import { slackExecutors } from './slack.executors';
import data from './toolkit.json';

export class SlackEnvironment {
  /** Slack's Web API base URL; tests point it at a fake. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  SLACK_API_URL: string = 'https://slack.com/api';
}

export const slackToolkit = defineToolkit({
  name: 'Slack',
  source: { dir: __dirname, file: 'toolkit.json', data },
  environment: SlackEnvironment,
  config: (vars) => baseUrl(vars.SLACK_API_URL),
  executors: (url, { http }) => slackExecutors(http, url),
});
