/**
 * The regular-expression constructs that some LLM provider refuses in a tool schema's `pattern`,
 * each refusing the whole request rather than the one tool:
 * - lookaround `(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`: OpenAI answers `400 Invalid JSON schema:
 *   regex lookaround is not supported` (its strict mode compiles patterns into a grammar the model
 *   is held to, and a lookaround has none);
 * - backreferences `\1`, `\k<name>`: not a regular language either, so no grammar;
 * - named groups `(?<name>…)`, Unicode property escapes `\p{…}` and code point escapes `\u{…}`:
 *   ECMAScript syntax that OpenAI's schema check (Python's `re`) does not compile.
 * Everything else a toolkit needs (classes, alternation, `(?:…)`, counted repetition, anchors)
 * is the common ground of ECMAScript, Python and the constrained decoders.
 */
export type UnportableConstruct =
  | 'lookahead'
  | 'lookbehind'
  | 'backreference'
  | 'named group'
  | 'Unicode property escape'
  | 'code point escape';

/** The unportable constructs `pattern` uses, each once, in the order first met. */
export function unportablePatternConstructs(pattern: string): UnportableConstruct[] {
  const found = new Set<UnportableConstruct>();
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at];
    const next = pattern[at + 1];
    if (char === '\\') {
      const after = pattern[at + 2];
      if ((next === 'p' || next === 'P') && after === '{') found.add('Unicode property escape');
      else if (next === 'u' && after === '{') found.add('code point escape');
      else if (!inClass && next === 'k' && after === '<') found.add('backreference');
      else if (!inClass && next >= '1' && next <= '9') found.add('backreference');
      at++; // the escaped character is never syntax
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(' && next === '?') {
      const kind = pattern.slice(at + 2, at + 4);
      if (kind[0] === '=' || kind[0] === '!') found.add('lookahead');
      else if (kind === '<=' || kind === '<!') found.add('lookbehind');
      else if (kind[0] === '<') found.add('named group');
    }
  }
  return [...found];
}
