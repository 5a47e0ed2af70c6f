import { loadToolCatalog } from '../../catalog/tool-catalog';
import { validateToolInput } from '../../execution/tool-input.validator';

/**
 * The repository-name pattern was `^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$`: GitHub's characters, 1 to
 * 100 of them, but not `.` or `..`. OpenAI refuses a lookahead, so it is written as three
 * branches by how the name starts: not with a dot (then anything); a dot and then not a dot; two
 * dots and at least one more character. These tests hold it to the old one.
 */
const BEFORE = /^(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/u;

const catalog = loadToolCatalog();
const tools = ['Github.CreateIssue', 'Github.ListPullRequests'].map((name) => catalog.find(name)!);
const repoPattern = (name: string) =>
  catalog.find(name)!.parameters.find((param) => param.name === 'repo')!.value_schema.pattern!;
// As execution compiles it (ajv: `u`).
const AFTER = new RegExp(repoPattern('Github.CreateIssue'), 'u');

/** Every string over `alphabet` of each length up to `maxLength`. */
function* allStrings(alphabet: readonly string[], maxLength: number): Generator<string> {
  let level = [''];
  yield '';
  for (let length = 1; length <= maxLength; length++) {
    level = level.flatMap((prefix) => alphabet.map((char) => prefix + char));
    yield* level;
  }
}

/** A small seeded generator, so a failure names a string that can be tried again. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("GitHub's repository name pattern, without lookahead", () => {
  it('is the same pattern in every GitHub tool, and has no lookaround', () => {
    expect(repoPattern('Github.ListPullRequests')).toBe(AFTER.source);
    expect(AFTER.source).not.toMatch(/\(\?<?[=!]/);
  });

  it('decides every string of up to 5 characters as the lookahead did', () => {
    // The dot, a character of each other class in the set, and characters outside it.
    const alphabet = ['.', 'a', 'Z', '0', '_', '-', '/', ' ', 'é', '\n'];
    let accepted = 0;
    let checked = 0;
    for (const name of allStrings(alphabet, 5)) {
      if (AFTER.test(name) !== BEFORE.test(name))
        throw new Error(`differs on ${JSON.stringify(name)}`);
      if (BEFORE.test(name)) accepted++;
      checked++;
    }
    expect(checked).toBe(111_111);
    expect(accepted).toBe(6 ** 1 - 1 + 6 ** 2 - 1 + 6 ** 3 + 6 ** 4 + 6 ** 5);
  });

  it('decides names around the 100-character limit and 20,000 random ones as the lookahead did', () => {
    const starts = ['', '.', '..', '...', 'a', '.a', 'a.', '..a'];
    for (const start of starts) {
      for (let length = 95; length <= 102; length++) {
        for (const fill of ['a', '.', '-']) {
          const name = (start + fill.repeat(length)).slice(0, length);
          expect([name, AFTER.test(name)]).toEqual([name, BEFORE.test(name)]);
        }
      }
    }
    const random = seeded(22);
    const alphabet = '..........abcXYZ019_-/ é';
    for (let i = 0; i < 20_000; i++) {
      const length = Math.floor(random() * 104);
      let name = '';
      for (let c = 0; c < length; c++) name += alphabet[Math.floor(random() * alphabet.length)];
      if (AFTER.test(name) !== BEFORE.test(name))
        throw new Error(`differs on ${JSON.stringify(name)}`);
    }
  });

  it.each(tools.map((tool) => [tool.qualifiedName, tool] as const))(
    '%s accepts and refuses the same repository names on execution',
    (_name, tool) => {
      const needsTitle = tool.parameters.some((param) => param.name === 'title');
      const input = (repo: string) => ({
        owner: 'octocat',
        repo,
        ...(needsTitle && { title: 'Bug' }),
      });
      const accepted = [
        'hello-world',
        '.github',
        '...',
        '..a',
        'a',
        '_',
        'a.b-c_d',
        'x'.repeat(100),
      ];
      const refused = ['.', '..', '', 'x'.repeat(101), 'a/b', 'héllo', ' a', 'a\n'];
      for (const repo of accepted) {
        expect([repo, validateToolInput(tool, input(repo)).errors]).toEqual([repo, []]);
      }
      for (const repo of refused) {
        expect([repo, validateToolInput(tool, input(repo)).errors]).toEqual([
          repo,
          [{ field: 'input.repo', message: expect.stringMatching(/pattern|characters/) }],
        ]);
      }
    },
  );
});
