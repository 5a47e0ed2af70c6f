/*
 * Preloaded into agentline by the webhooks benchmark (`node -r ts-node/register/transpile-only -r
 * ./bench/loop-probe.ts`): a 10 ms timer that notes each time it ran late, i.e. how long the event
 * loop was held, and how much CPU the process used meanwhile (on a loaded machine a late timer may
 * only mean the process waited for a core: then the CPU used is much less than the delay).
 * Appends `<epoch ms>,<stall ms>,<cpu ms>` to BENCH_LOOP_PROBE_FILE for every stall over 20 ms.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_LOOP_PROBE_FILE;
const TICK_MS = 10;
if (file) {
  let last = performance.now();
  let cpu = process.cpuUsage();
  setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    const stall = now - last - TICK_MS;
    last = now;
    cpu = process.cpuUsage();
    if (stall > 20) {
      const cpuMs = Math.round((used.user + used.system) / 1000);
      appendFileSync(file, `${Date.now()},${Math.round(stall)},${cpuMs}\n`);
    }
  }, TICK_MS).unref();
}
