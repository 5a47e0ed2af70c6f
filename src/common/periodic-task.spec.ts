import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  it('runs once at a time: a call during a run shares it', async () => {
    let runs = 0;
    let finish = () => {};
    const task = new PeriodicTask(
      () => {
        runs++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      60_000,
      () => {},
    );
    const first = task.runNow();
    const second = task.runNow();
    expect(second).toBe(first);
    finish();
    await first;
    const third = task.runNow();
    expect(third).not.toBe(first);
    finish();
    await third;
    expect(runs).toBe(2);
  });

  it('hands a failure to onError, and stop waits for the run in flight and ends the timer', async () => {
    const errors: unknown[] = [];
    let finish = () => {};
    const task = new PeriodicTask(
      () => new Promise<void>((_, reject) => (finish = () => reject(new Error('away')))),
      60_000,
      (error) => errors.push(error),
    );
    task.start();
    const stopped = task.stop();
    finish();
    await stopped;
    expect(errors).toEqual([new Error('away')]);
    await task.runNow();
    expect(errors).toHaveLength(1);
  });
});
