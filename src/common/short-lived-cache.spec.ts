import { ShortLivedCache } from './short-lived-cache';

describe('ShortLivedCache', () => {
  const counting = <T>(value: T | undefined) => {
    const lookUp = jest.fn(() => Promise.resolve(value));
    return lookUp;
  };

  it('keeps what it found for its time: one look-up for calls within it, one more after', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const cache = new ShortLivedCache<string>(1_000, 10);
      const lookUp = counting('channel');
      await expect(cache.find('a', lookUp)).resolves.toBe('channel');
      await expect(cache.find('a', lookUp)).resolves.toBe('channel');
      expect(lookUp).toHaveBeenCalledTimes(1);
      jest.advanceTimersByTime(1_001);
      await expect(cache.find('a', lookUp)).resolves.toBe('channel');
      expect(lookUp).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('shares one look-up between concurrent calls for a key', async () => {
    const cache = new ShortLivedCache<string>(1_000, 10);
    let answer!: (value: string) => void;
    const lookUp = jest.fn(() => new Promise<string>((resolve) => (answer = resolve)));
    const both = Promise.all([cache.find('a', lookUp), cache.find('a', lookUp)]);
    answer('channel');
    await expect(both).resolves.toEqual(['channel', 'channel']);
    expect(lookUp).toHaveBeenCalledTimes(1);
  });

  it('keeps neither a miss nor a failure: the next call looks again', async () => {
    const cache = new ShortLivedCache<string>(1_000, 10);
    const miss = counting<string>(undefined);
    await expect(cache.find('a', miss)).resolves.toBeUndefined();
    await expect(cache.find('a', miss)).resolves.toBeUndefined();
    expect(miss).toHaveBeenCalledTimes(2);
    const failing = jest.fn(() => Promise.reject(new Error('database away')));
    await expect(cache.find('b', failing)).rejects.toThrow('database away');
    await expect(cache.find('b', failing)).rejects.toThrow('database away');
    expect(failing).toHaveBeenCalledTimes(2);
  });

  it('forgets a key on demand (a write of this process), and drops the oldest past its size', async () => {
    const cache = new ShortLivedCache<string>(60_000, 2);
    const lookUp = counting('channel');
    await cache.find('a', lookUp);
    cache.forget('a');
    await cache.find('a', lookUp);
    expect(lookUp).toHaveBeenCalledTimes(2);
    await cache.find('b', lookUp);
    await cache.find('c', lookUp); // 'a' is dropped
    await cache.find('b', lookUp);
    expect(lookUp).toHaveBeenCalledTimes(4);
    await cache.find('a', lookUp);
    expect(lookUp).toHaveBeenCalledTimes(5);
  });
});
