import { BuiltinToolkit } from './builtin-toolkit';
import { githubToolkit } from './github/github.toolkit';
import { googleToolkit } from './google/google.toolkit';
import { mathToolkit } from './math/math.toolkit';
import { searchToolkit } from './search/search.toolkit';
import { slackToolkit } from './slack/slack.toolkit';
import { textToolkit } from './text/text.toolkit';
import { timeToolkit } from './time/time.toolkit';
import { weatherToolkit } from './weather/weather.toolkit';

/**
 * The built-in toolkits, one folder each (docs/toolkits.md, "Adding a built-in toolkit"): the
 * catalog loads their data files, the configuration reads their environment, and
 * BuiltinToolkitsRegistrar registers their executors.
 */
export const BUILTIN_TOOLKITS: readonly BuiltinToolkit[] = [
  githubToolkit,
  googleToolkit,
  mathToolkit,
  searchToolkit,
  slackToolkit,
  textToolkit,
  timeToolkit,
  weatherToolkit,
];
