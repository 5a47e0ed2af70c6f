/*
 * `npx ts-node --transpile-only bench/cpu-profile.ts <file.cpuprofile> [top] [from-s]`: sums a V8 CPU
 * profile's self time per function and per package (or source file of this project), in shares
 * of the sampled time, idle excluded, and the inclusive time of each function (itself and what it
 * calls, counted once per sample). Samples before `from-s` seconds (start-up) are left out. For
 * reading the profiles that BENCH_CPU_PROF=<dir> writes.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `pkg` for node_modules/pkg (or @scope/pkg), the file for this project's own code. */
function owner(url: string): string {
  if (!url) return '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return url;
  const own = /\/(dist\/)?(src\/.*|bench\/.*)$/.exec(url);
  return own ? own[2] : url;
}

function main(): void {
  const [file, topArg, fromArg] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpu-profile.ts <file.cpuprofile> [top]');
  const top = Number(topArg ?? 40);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  // From the first sample on, the time of each; samples before `from` count as nothing.
  const fromUs = Number(fromArg ?? 0) * 1e6;
  let at = 0;
  profile.timeDeltas = profile.timeDeltas.map((delta) => ((at += delta), at < fromUs ? 0 : delta));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const nameOf = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    return `${functionName || '(anonymous)'} ${owner(url)}:${lineNumber + 1}`;
  };
  const inclusive = new Map<string, number>();
  profile.samples.forEach((leaf, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    const leafName = (byId.get(leaf) as ProfileNode).callFrame.functionName;
    if (leafName === '(idle)' || leafName === '(program)') return;
    const seen = new Set<string>();
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const name = nameOf(byId.get(id) as ProfileNode);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  });
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url } = (byId.get(id) as ProfileNode).callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    busy += us;
    const name = nameOf(byId.get(id) as ProfileNode);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byOwner.set(owner(url), (byOwner.get(owner(url)) ?? 0) + us);
  }
  const print = (title: string, totals: Map<string, number>) => {
    process.stdout.write(`\n${title} (share of ${Math.round(busy / 1000)} ms busy)\n`);
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([name, us]) =>
        process.stdout.write(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}\n`),
      );
  };
  print('self time by package or file', byOwner);
  print('self time by function', byFunction);
  print('inclusive time by function', inclusive);
}

main();
