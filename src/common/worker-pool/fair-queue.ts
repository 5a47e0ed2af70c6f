/**
 * A queue per key (an organization id), served round-robin: each `shift` takes the oldest item
 * of the key whose turn it is, then sends that key to the back of the line. One key's burst
 * therefore delays another key's item by at most one item of each key ahead of it.
 */
export class FairQueue<T> {
  /** Insertion order is the line: the first key is served next. Empty queues are removed. */
  private readonly queues = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  sizeOf(key: string): number {
    return this.queues.get(key)?.length ?? 0;
  }

  push(key: string, item: T): void {
    const queue = this.queues.get(key);
    if (queue) queue.push(item);
    else this.queues.set(key, [item]);
    this.count += 1;
  }

  /** The next item, in turn; the key it came from goes to the back of the line. */
  shift(): T | undefined {
    const next = this.queues.entries().next();
    if (next.done) return undefined;
    const [key, queue] = next.value;
    const item = queue.shift() as T;
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    this.count -= 1;
    return item;
  }

  /** Removes `item` wherever it waits; false when it is not queued. */
  remove(key: string, item: T): boolean {
    const queue = this.queues.get(key);
    const index = queue ? queue.indexOf(item) : -1;
    if (!queue || index < 0) return false;
    queue.splice(index, 1);
    if (queue.length === 0) this.queues.delete(key);
    this.count -= 1;
    return true;
  }

  /** The key with the most items queued (the first in line among equals). */
  largest(): string | undefined {
    let largest: [string, T[]] | undefined;
    for (const entry of this.queues) {
      if (!largest || entry[1].length > largest[1].length) largest = entry;
    }
    return largest?.[0];
  }

  /** Takes out the newest item of `key`. */
  popNewest(key: string): T | undefined {
    const queue = this.queues.get(key);
    if (!queue) return undefined;
    const item = queue.pop();
    if (queue.length === 0) this.queues.delete(key);
    this.count -= 1;
    return item;
  }

  /** Every item, oldest of each key first; the queue is left empty. */
  drain(): T[] {
    const items = [...this.queues.values()].flat();
    this.queues.clear();
    this.count = 0;
    return items;
  }
}
