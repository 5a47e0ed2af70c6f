import { spawn } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const tsNode = [require.resolve('ts-node/dist/bin.js'), '--transpile-only'];

/** agentline from src/main.ts with only `env`, under umask 022 (what most systems give). */
export function startUnderUmask022(env: Record<string, string>) {
  const child = spawn(
    'sh',
    ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, ...tsNode, 'src/main.ts'],
    { cwd: root, env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env } },
  );
  let output = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.on('exit', done));
  return { child, exited, output: () => output, stderr: () => stderr };
}

/** Every entry under `dir` whose mode is not 0700 (directories) or 0600 (files), as `mode path`. */
export function notPrivate(dir: string): { loose: string[]; files: number } {
  const loose: string[] = [];
  let files = 0;
  const walk = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode !== 0o700) loose.push(`${mode.toString(8)} ${path}`);
      for (const name of readdirSync(path)) walk(join(path, name));
    } else {
      files++;
      if (mode !== 0o600) loose.push(`${mode.toString(8)} ${path}`);
    }
  };
  walk(dir);
  return { loose, files };
}
