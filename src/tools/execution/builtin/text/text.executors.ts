import { ToolExecutor } from '../../tool-executor';
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
    let characters = 0;
    for (const { segment } of graphemes.segment(text)) {
      if (countWhitespace || !/^\s+$/u.test(segment)) characters++;
    }
    return Promise.resolve({
      words: text.split(/\s+/u).filter((token) => HAS_WORD_CHARACTER.test(token)).length,
      characters,
      sentences: [...sentences.segment(text)].filter(({ segment }) =>
        HAS_WORD_CHARACTER.test(segment),
      ).length,
      lines: text === '' ? 0 : text.replace(/(?:\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/).length,
    });
  },
};

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

/** Lower case, with the first letter of the text and of each sentence capitalized. */
function sentenceCase(text: string): string {
  return text
    .toLowerCase()
    .replace(
      /(^|[.!?]\s+)(\P{L}*)(\p{L})/gu,
      (_match, start: string, gap: string, letter: string) =>
        `${start}${gap}${letter.toUpperCase()}`,
    );
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
