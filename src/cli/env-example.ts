/*
 * Writes .env.example and README's configuration table from the variables each module declares
 * (`@Env`, src/config/env-declaration.ts): `npm run env:example`. A unit test fails when the
 * files in the repository differ from what this writes.
 */
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
// Loads every module, and with them every declaration.
import '../app.module';
import { declaredVariables } from '../config/env-declaration';
import { configurationFiles } from '../config/env-docs';

const root = join(__dirname, '..', '..');
const groups = declaredVariables();
for (const { file, content } of configurationFiles(root, groups)) {
  const changed = readFileSync(file, 'utf8') !== content;
  if (changed) writeFileSync(file, content);
  process.stdout.write(`${changed ? 'wrote' : 'unchanged'} ${relative(root, file)}\n`);
}
process.stdout.write(
  `${groups.reduce((sum, group) => sum + group.variables.length, 0)} variables in ${groups.length} groups\n`,
);
