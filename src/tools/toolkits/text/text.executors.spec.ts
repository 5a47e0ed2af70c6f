import { ToolExecutionContext, ToolInput } from '../../execution/tool-executor';
import { changeCase, countGraphemes, countWords } from './text.executors';

const context = {} as ToolExecutionContext;
const run = (executor: typeof countWords, input: ToolInput) => executor.execute(input, context);

/** Pieces that stress cluster boundaries: pairs, flags, ZWJ sequences, combining marks, CR LF. */
const PIECES = [
  'a',
  ' ',
  '. ',
  '\r\n',
  '\r',
  'é',
  'e\u0301',
  '👍🏽',
  '🇪🇸',
  '🇫',
  '👨‍👩‍👧',
  '\u200d',
  '각',
  '\u1100\u1161',
  '!',
  '\t',
];

/** A deterministic pseudo-random text (mulberry32), so that a failure can be replayed. */
function randomText(seed: number, pieces: number): string {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let text = '';
  for (let i = 0; i < pieces; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const graphemesAtOnce = (text: string) => [...segmenter.segment(text)].length;

describe('countGraphemes', () => {
  it('counts exactly as one pass of the segmenter over texts that cross many windows', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const text = randomText(seed, 1500);
      expect([seed, countGraphemes(text)]).toEqual([seed, graphemesAtOnce(text)]);
    }
  });

  it('keeps a cluster longer than a window whole', () => {
    expect(countGraphemes(`x${'a'.padEnd(5000, '\u0301')}y`)).toBe(3);
  });

  it('leaves whitespace out when asked', () => {
    expect(countGraphemes('a b\r\nc', false)).toBe(3);
  });
});

describe('Text.CountWords', () => {
  it('measures words, characters, sentences and lines', async () => {
    await expect(run(countWords, { text: 'Hi there 👍🏽. Bye!\n' })).resolves.toEqual({
      words: 3,
      characters: 17,
      sentences: 2,
      lines: 1,
    });
  });
});

describe('Text.ChangeCase sentence', () => {
  /** The regular expression sentence case used before: right, but quadratic. */
  const byRegExp = (text: string) =>
    text
      .toLowerCase()
      .replace(
        /(^|[.!?]\s+)(\P{L}*)(\p{L})/gu,
        (_match, start: string, gap: string, letter: string) =>
          `${start}${gap}${letter.toUpperCase()}`,
      );

  it('capitalizes as the regular expression did', async () => {
    const samples = ['hello. WORLD! how? (yes) ok', 'a.b. c', '... x', '. )x', 'ß. ßa', 'É. é'];
    for (let seed = 1; seed <= 20; seed++) samples.push(randomText(seed, 300));
    for (const text of samples) {
      await expect(run(changeCase, { text, case: 'sentence' })).resolves.toBe(byRegExp(text));
    }
  });
});
