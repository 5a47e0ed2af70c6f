import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBLEM_CODES, replaceProblemCodesSection } from './problem-codes';
import { ProblemException } from './problem';

describe('problem codes', () => {
  it("README's table is the registry's (npm run docs:problem-codes rewrites it)", () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    expect(replaceProblemCodesSection(readme)).toBe(readme);
  });

  it('gives every exception the status of its code', () => {
    for (const [code, { status }] of Object.entries(PROBLEM_CODES)) {
      const problem = new ProblemException(code as keyof typeof PROBLEM_CODES, 'x').toProblem();
      expect(problem).toMatchObject({ code, status });
      expect(problem.type).toBe(`https://agentline.dev/problems/${code.replace(/_/g, '-')}`);
    }
  });

  it('names codes in snake case, each once', () => {
    for (const code of Object.keys(PROBLEM_CODES)) expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
  });
});
