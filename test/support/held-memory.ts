import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A real collection before each measure, so that garbage does not read as held memory.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What this process holds in buffers and on the heap, after a full collection. */
export function heldBytes(): number {
  gc();
  const { arrayBuffers, heapUsed } = process.memoryUsage();
  return arrayBuffers + heapUsed;
}
