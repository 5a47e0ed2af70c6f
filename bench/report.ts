/*
 * docs/benchmarks.md is written in sections, one per benchmark, so that each can be re-run alone
 * (`npm run bench -- --only=http`) without losing the others' figures.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Client } from 'pg';

export const root = resolve(__dirname, '..');
const file = join(root, 'docs', 'benchmarks.md');

const HEADER = `# Benchmarks

Written by \`npm run bench\` (\`bench/run.ts\`). Each section below is one benchmark, with the
machine, the date and the command that produced it; \`npm run bench -- --only=<name>\` re-runs one
section and leaves the others as they are, \`--quick\` runs a shorter version of each.
This machine is shared and noisy: only figures measured side by side in the same run compare,
which is why every goal is stated as a ratio to a bare baseline run in the same run.
`;

/** What the benchmark ran on, for the section's first line. */
export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** Replaces (or appends) the section `name` of docs/benchmarks.md. */
export function writeSection(name: string, markdown: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : HEADER;
  const body = current.startsWith('# Benchmarks') ? current : HEADER;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const from = body.indexOf(start);
  const to = body.indexOf(end);
  const next =
    from >= 0 && to > from
      ? body.slice(0, from) + block + body.slice(to + end.length)
      : `${body.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}

/** Markdown table from a header row and rows. */
export function table(header: string[], rows: (string | number)[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A new, empty PostgreSQL database for one benchmark, and how to drop it. */
export async function benchDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = new Client({ connectionString: ADMIN_URL });
      await again.connect();
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await again.end();
    },
  };
}
