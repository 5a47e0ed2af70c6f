import { defineToolkit } from '../builtin-toolkit';
import { MATH_WORKER_MODULE, WORKER_TOOL_EXECUTORS } from './math.executors';
import data from './toolkit.json';

export const mathToolkit = defineToolkit({
  name: 'Math',
  source: { dir: __dirname, file: 'toolkit.json', data },
  worker: { file: MATH_WORKER_MODULE, executors: WORKER_TOOL_EXECUTORS },
});
