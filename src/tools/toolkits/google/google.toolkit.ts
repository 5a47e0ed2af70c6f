import { IsOptional, IsUrl } from 'class-validator';
import { baseUrl, defineToolkit } from '../builtin-toolkit';
import { gmailExecutors } from './gmail.executors';
import { googleCaller } from './google-api';
import { googleCalendarExecutors } from './google-calendar.executors';
import data from './toolkit.json';

export class GoogleEnvironment {
  /** Gmail's and Calendar's base URL; tests point it at a fake. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GOOGLE_API_URL: string = 'https://www.googleapis.com';
}

export const googleToolkit = defineToolkit({
  name: 'Google',
  source: { dir: __dirname, file: 'toolkit.json', data },
  environment: GoogleEnvironment,
  config: (vars) => baseUrl(vars.GOOGLE_API_URL),
  executors: (url, { http, clock }) => {
    const google = googleCaller(http, url);
    return { ...gmailExecutors(google), ...googleCalendarExecutors(google, clock) };
  },
});
