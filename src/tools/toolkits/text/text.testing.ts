import { filled, ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  worstInputs: {
    // Grapheme segmentation was quadratic: 100 KB took 5 s on the event loop.
    'Text.CountWords': () => ({ text: filled('hello world. 👍🏽 ', 100_000) }),
    // The old sentence-case regular expression backtracked on punctuation and spaces.
    'Text.ChangeCase': () => ({ text: filled('. ', 100_000), case: 'sentence' }),
  },
};
