import { ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  worstInputs: {
    'Math.Calculate': () => ({ expression: `${'1+'.repeat(4_999)}1`, precision: 15 }),
    'Math.Statistics': () => ({
      values: Array.from({ length: 10_000 }, (_, i) => ((i * 7919) % 100_003) / 7),
    }),
  },
};
