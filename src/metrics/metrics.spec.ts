import { Metrics } from './metrics';

const valueOf = async (metrics: Metrics, series: string): Promise<number | undefined> => {
  const line = (await metrics.registry.metrics())
    .split('\n')
    .find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('Metrics: database gauges', () => {
  it('are set by refresh, not by a scrape, and keep their last values when a read fails', async () => {
    const metrics = new Metrics();
    let reads = 0;
    let outage = false;
    metrics.gauge('test_rows', 'Rows.', ['state'], async (values) => {
      reads++;
      if (outage) throw new Error('connection terminated');
      values.set({ state: 'pending' }, reads);
    });
    await metrics.registry.metrics();
    expect(reads).toBe(0);

    await expect(metrics.refresh()).resolves.toEqual([]);
    expect(await valueOf(metrics, 'test_rows{state="pending"}')).toBe(1);
    expect(await valueOf(metrics, 'agentline_database_up')).toBe(1);
    expect(reads).toBe(1);

    outage = true;
    const failures = await metrics.refresh();
    expect(failures).toEqual([new Error('connection terminated')]);
    expect(await valueOf(metrics, 'test_rows{state="pending"}')).toBe(1);
    expect(await valueOf(metrics, 'agentline_database_up')).toBe(0);

    outage = false;
    await metrics.refresh();
    expect(await valueOf(metrics, 'test_rows{state="pending"}')).toBe(3);
    expect(await valueOf(metrics, 'agentline_database_up')).toBe(1);
  });

  it('drop a series the last successful read did not set', async () => {
    const metrics = new Metrics();
    let states = ['pending', 'failed'];
    metrics.gauge('test_rows', 'Rows.', ['state'], (values) => {
      for (const state of states) values.set({ state }, 1);
    });
    await metrics.refresh();
    expect(await valueOf(metrics, 'test_rows{state="failed"}')).toBe(1);
    states = ['pending'];
    await metrics.refresh();
    expect(await valueOf(metrics, 'test_rows{state="failed"}')).toBeUndefined();
  });
});
