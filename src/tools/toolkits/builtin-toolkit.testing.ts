/**
 * What the tests need to know of a built-in toolkit, kept in its folder as `<folder>.testing.ts`
 * exporting `testing` (test/support/toolkits.ts finds it from BUILTIN_TOOLKITS), so that adding a
 * toolkit touches its folder and the index only. Test data: never imported by the service, and
 * left out of the build (tsconfig.build.json).
 */
export interface ToolkitTesting {
  /** The prefix of every variable the toolkit reads: a test app clears them before it boots. */
  variablePrefix?: string;
  /**
   * The variable naming the provider's base URL, which tests point at a fake (or nowhere), and
   * the path of the real base URL after its host, under which a fake serves.
   */
  provider?: { urlVariable: string; path?: string };
  /**
   * The costliest input each of its tools accepts: its strings at their max_length, its arrays at
   * their max_items, and the content its algorithm likes least. test/event-loop.alone-spec.ts
   * times /health while each runs, and fails for a tool of the catalog without one.
   */
  worstInputs: Record<string, () => Record<string, unknown>>;
}

/** `n` characters of `unit` repeated: a string exactly at a max_length. */
export const filled = (unit: string, n: number): string =>
  unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

/** `n` addresses of over 300 characters each. */
export const longEmails = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `${filled('a', 300)}${i}@example.com`);
