/*
 * `npm run bench [-- --quick] [-- --only=http,startup,delivery,webhooks]`: runs the benchmarks one after the
 * other (never together: they would share the two cores) and writes docs/benchmarks.md.
 * Not a test: nothing here asserts a timing.
 */
import { execFileSync } from 'node:child_process';
import { root } from './report';

export interface BenchOptions {
  /** A shorter run, for a newcomer or a quick check (a minute or two in all). */
  quick: boolean;
}

type Bench = (options: BenchOptions) => Promise<void>;

const BENCHES: Record<string, () => Promise<Bench>> = {
  http: async () => (await import('./http')).runHttpBench,
  startup: async () => (await import('./startup')).runStartupBench,
  delivery: async () => (await import('./delivery')).runDeliveryBench,
  webhooks: async () => (await import('./webhooks')).runWebhooksBench,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick') || process.env.BENCH_QUICK === '1';
  const only = args
    .find((arg) => arg.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const unknown = (only ?? []).filter((name) => !(name in BENCHES));
  if (unknown.length > 0) {
    throw new Error(
      `unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`,
    );
  }
  execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  for (const [name, load] of Object.entries(BENCHES)) {
    if (only && !only.includes(name)) continue;
    process.stdout.write(`\n== ${name}${quick ? ' (quick)' : ''} ==\n`);
    await (
      await load()
    )({ quick });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
