import { defineToolkit } from '../builtin-toolkit';
import { convertTimeZone, currentTime } from './time.executors';
import data from './toolkit.json';

/** Constant work on bounded input: the Time tools stay on the event loop. */
export const timeToolkit = defineToolkit({
  name: 'Time',
  source: { dir: __dirname, file: 'toolkit.json', data },
  executors: (_config, { clock }) => ({
    'Time.CurrentTime': currentTime(clock),
    'Time.ConvertTimeZone': convertTimeZone,
  }),
});
