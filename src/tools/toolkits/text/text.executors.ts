import { ToolExecutor } from '../../execution/tool-executor';
import { optionalBoolean, requiredString } from '../tool-input.readers';

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });
const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;

/**
 * Text.CountWords: `{text, count_whitespace?}` -> `{words, characters, sentences, lines}`.
 * - words: whitespace-separated runs holding a letter or digit ("don't", "3.14" and "e-mail" are
 *   one word each; a lone "-" is none);
 * - characters: user-perceived characters (grapheme clusters: "👍🏽" is one), whitespace
 *   included unless count_whitespace is false;
 * - sentences: Unicode sentence segments that hold a word character;
 * - lines: line breaks split lines; a final line break does not start another; "" has none.
 */
export const countWords: ToolExecutor = {
  execute(input) {
    const text = requiredString(input, 'text');
    const countWhitespace = optionalBoolean(input, 'count_whitespace') ?? true;
    return Promise.resolve({
      words: text.split(/\s+/u).filter((token) => HAS_WORD_CHARACTER.test(token)).length,
      characters: countGraphemes(text, countWhitespace),
      sentences: [...sentences.segment(text)].filter(({ segment }) =>
        HAS_WORD_CHARACTER.test(segment),
      ).length,
      lines: text === '' ? 0 : text.replace(/(?:\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/).length,
    });
  },
};

/** Long enough that a window holds many clusters, short enough that its cost stays small. */
const GRAPHEME_WINDOW = 1024;
const WHITESPACE = /^\s+$/u;

/**
 * Grapheme clusters, in linear time. V8's grapheme segmenter costs time quadratic in the length
 * of the string it is given (100 KB took 5 s), so it is given windows of GRAPHEME_WINDOW code
 * units. A window's last two segments may be cut (or be read wrongly, when the window ends inside
 * a surrogate pair), so the next window starts at the second-to-last: a boundary depends only on
 * the text before it and the character after it, both whole there. A cluster longer than a
 * window (a letter with thousands of combining marks) doubles the window until it fits.
 */
export function countGraphemes(text: string, countWhitespace = true): number {
  let count = 0;
  let start = 0;
  let window = GRAPHEME_WINDOW;
  while (start < text.length) {
    const last = start + window >= text.length;
    const segments = [...graphemes.segment(text.slice(start, start + window))];
    const complete = last ? segments.length : segments.length - 2;
    if (complete <= 0) {
      window *= 2;
      continue;
    }
    for (let index = 0; index < complete; index++) {
      if (countWhitespace || !WHITESPACE.test(segments[index].segment)) count++;
    }
    if (last) break;
    start += segments[complete].index;
    window = GRAPHEME_WINDOW;
  }
  return count;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** Text.ChangeCase: `{text, case}` -> the text in upper, lower, title, sentence or snake case. */
export const changeCase: ToolExecutor = {
  execute(input) {
    const text = requiredString(input, 'text');
    switch (requiredString(input, 'case')) {
      case 'upper':
        return Promise.resolve(text.toUpperCase());
      case 'lower':
        return Promise.resolve(text.toLowerCase());
      case 'title':
        return Promise.resolve(text.replace(WORD, capitalize));
      case 'sentence':
        return Promise.resolve(sentenceCase(text));
      default:
        return Promise.resolve(snakeCase(text));
    }
  },
};

function capitalize(word: string): string {
  const [first = '', ...rest] = [...word];
  return first.toUpperCase() + rest.join('').toLowerCase();
}

const LETTER = /^\p{L}$/u;
const SPACE = /^\s$/u;

/**
 * Lower case, with the first letter of the text, and the first letter after a `.`, `!` or `?`
 * followed by whitespace, capitalized. One pass over the characters: the regular expression this
 * replaces backtracked quadratically on long runs of punctuation and spaces.
 */
function sentenceCase(text: string): string {
  let result = '';
  let capitalizeNext = true;
  let afterTerminator = false;
  for (const character of text.toLowerCase()) {
    if (LETTER.test(character)) {
      result += capitalizeNext ? character.toUpperCase() : character;
      capitalizeNext = false;
      afterTerminator = false;
      continue;
    }
    result += character;
    if (character === '.' || character === '!' || character === '?') afterTerminator = true;
    else if (afterTerminator && SPACE.test(character)) capitalizeNext = true;
    else afterTerminator = false;
  }
  return result;
}

/** "Hello World", "helloWorld" and "HTTPServer v2" -> hello_world, hello_world, http_server_v2. */
function snakeCase(text: string): string {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word.toLowerCase())
    .join('_');
}

/** This file, as a worker module: the Text tools' cost grows with their input. */
export const TEXT_WORKER_MODULE = __filename;
export const WORKER_TOOL_EXECUTORS: Readonly<Record<string, ToolExecutor>> = {
  'Text.CountWords': countWords,
  'Text.ChangeCase': changeCase,
};
