import { defineToolkit, providerUrl } from '../builtin-toolkit';
import { gmailExecutors } from './gmail.executors';
import { googleCaller } from './google-api';
import { googleCalendarExecutors } from './google-calendar.executors';
import data from './toolkit.json';

export const googleToolkit = defineToolkit({
  name: 'Google',
  source: { dir: __dirname, file: 'toolkit.json', data },
  // Gmail's and Calendar's API; GOOGLE_API_URL points it elsewhere (tests: a fake).
  ...providerUrl('GOOGLE_API_URL', 'https://www.googleapis.com', 'Google'),
  executors: (url, { http, clock }) => {
    const google = googleCaller(http, url);
    return { ...gmailExecutors(google), ...googleCalendarExecutors(google, clock) };
  },
});
