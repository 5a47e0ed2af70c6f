import { IsOptional, IsUrl } from 'class-validator';
import { baseUrl, defineToolkit } from '../builtin-toolkit';
import { serpApiExecutors } from './serpapi.executors';
import data from './toolkit.json';

export class SearchEnvironment {
  /** SerpApi's base URL; tests point it at a fake. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  SERPAPI_API_URL: string = 'https://serpapi.com';
}

export const searchToolkit = defineToolkit({
  name: 'Search',
  source: { dir: __dirname, file: 'toolkit.json', data },
  environment: SearchEnvironment,
  config: (vars) => baseUrl(vars.SERPAPI_API_URL),
  executors: (url, { http }) => serpApiExecutors(http, url),
});
