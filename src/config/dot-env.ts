import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadEnvFile } from 'node:process';

/**
 * Reads `.env` from the working directory, when there is one, into process.env (Node's own
 * parser; see .env.example). A variable set in the environment wins over the file, so that an
 * operator's `-e` or a compose `environment:` entry is never overridden by a stale file.
 */
export function loadDotEnv(directory: string = process.cwd()): void {
  const file = join(directory, '.env');
  if (existsSync(file)) loadEnvFile(file);
}
