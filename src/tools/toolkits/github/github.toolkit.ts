import { IsOptional, IsUrl } from 'class-validator';
import { baseUrl, defineToolkit } from '../builtin-toolkit';
import { githubExecutors } from './github.executors';
import data from './toolkit.json';

export class GithubEnvironment {
  /** GitHub's REST API base URL; tests point it at a fake. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GITHUB_API_URL: string = 'https://api.github.com';
}

export const githubToolkit = defineToolkit({
  name: 'Github',
  source: { dir: __dirname, file: 'toolkit.json', data },
  environment: GithubEnvironment,
  config: (vars) => baseUrl(vars.GITHUB_API_URL),
  executors: (url, { http }) => githubExecutors(http, url),
});
