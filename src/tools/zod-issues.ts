import { z } from 'zod';

/** One problem found by a zod schema: where (`tools[1].name`, `(root)`) and what. */
export interface ZodProblem {
  path: string;
  message: string;
}

/** An object that refuses unknown keys, so that a typo ("requried") cannot pass silently. */
export function strictObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `(allowed: ${allowed})` : undefined),
  });
}

/** `['tools', 1, 'name']` → `tools[1].name`; the empty path is `(root)`. */
function formatZodPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/** The issues of a failed parse, one per unknown key too, each with its path. */
export function zodProblems(error: z.ZodError): ZodProblem[] {
  return error.issues.flatMap((issue): ZodProblem[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: formatZodPath([...issue.path, key]),
          message: `unknown property "${key}" ${issue.message}`,
        }))
      : [{ path: formatZodPath(issue.path), message: issue.message }],
  );
}
