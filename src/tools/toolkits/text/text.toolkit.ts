import { defineToolkit } from '../builtin-toolkit';
import { TEXT_WORKER_MODULE, WORKER_TOOL_EXECUTORS } from './text.executors';
import data from './toolkit.json';

export const textToolkit = defineToolkit({
  name: 'Text',
  source: { dir: __dirname, file: 'toolkit.json', data },
  worker: { file: TEXT_WORKER_MODULE, executors: WORKER_TOOL_EXECUTORS },
});
