import fs from 'node:fs';
import path from 'node:path';

/** Walks up until a directory holding package.json: works from src/ (ts-jest) and dist/src/ (tsc). */
export function findRepoRoot(startDir: string = __dirname): string {
  let dir = path.resolve(startDir);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json found above ${startDir}`);
    dir = parent;
  }
}
