import { setFlagsFromString } from 'node:v8';

/**
 * The embedded database runs inside the service process, on a laptop: memory comes before speed
 * there (README: "Memory of the embedded database"). Set by main.ts before PGlite loads; not in
 * PostgreSQL mode, and not in the tests' in-process apps.
 *
 * - `--liftoff-only`: PGlite's WebAssembly is compiled by V8's baseline compiler only. The
 *   optimizing tier compiled the hot part of PostgreSQL a second time in background threads after
 *   start, and the process kept that memory: idle RSS 272 -> 216 MB, ready 4.5 -> 2.0 s, delivery
 *   bursts as fast within noise. It applies to every WebAssembly module of the process (undici's
 *   HTTP parser too).
 * - `--optimize-for-size`: V8 keeps the JavaScript heap small. In a delivery burst the heap grew to
 *   240 MB committed for 76 MB live: the burst peaked at 448 MB against 230 with the flag, idle
 *   216 -> 178 MB; it costs a delivery burst about 15% of its throughput (2026-11-25, quick runs).
 */
export function preferMemoryOverSpeed(): void {
  setFlagsFromString('--liftoff-only');
  setFlagsFromString('--optimize-for-size');
}
