import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceProblemCodesSection } from '../common/http/problem-codes';

// Rewrites README's table of problem codes from the registry (src/common/http/problem-codes.ts).
const readme = join(__dirname, '..', '..', 'README.md');
writeFileSync(readme, replaceProblemCodesSection(readFileSync(readme, 'utf8')));
