/** True when every required scope is among the granted ones. */
export const coversScopes = (granted: readonly string[], required: readonly string[]): boolean =>
  required.every((scope) => granted.includes(scope));

/** The scopes of several lists, each once, in first-seen order. */
export const unionScopes = (...lists: ReadonlyArray<readonly string[]>): string[] => [
  ...new Set(lists.flat()),
];
