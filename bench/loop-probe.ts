/*
 * Preloaded into agentline by the webhooks benchmark (`node -r ts-node/register/transpile-only -r
 * ./bench/loop-probe.ts`): a 10 ms timer that notes each time it ran late, i.e. how long the event
 * loop was held. Appends `<epoch ms>,<stall ms>` to BENCH_LOOP_PROBE_FILE for every stall over
 * 20 ms, so the benchmark can take the worst one within the window it measures.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_LOOP_PROBE_FILE;
const TICK_MS = 10;
if (file) {
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const stall = now - last - TICK_MS;
    last = now;
    if (stall > 20) appendFileSync(file, `${Date.now()},${Math.round(stall)}\n`);
  }, TICK_MS).unref();
}
