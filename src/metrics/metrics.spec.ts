import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from '../common/repo-root';
import { ManualClock } from '../../test/support/manual-clock';
import { Metrics } from './metrics';

const READ_AT = 'agentline_database_gauges_last_success_timestamp_seconds';

const valueOf = async (metrics: Metrics, series: string): Promise<number | undefined> => {
  const line = (await metrics.registry.metrics())
    .split('\n')
    .find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('Metrics: database gauges', () => {
  it('are set by refresh, not by a scrape, and keep their last values when a read fails', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const metrics = new Metrics(clock);
    let reads = 0;
    let outage = false;
    metrics.gauge('test_rows', 'Rows.', ['state'], async (values) => {
      reads++;
      if (outage) throw new Error('connection terminated');
      values.set({ state: 'pending' }, reads);
    });
    await metrics.registry.metrics();
    expect(reads).toBe(0);
    // Never read yet: as old as can be, so that an alert on the age fires.
    expect(await valueOf(metrics, READ_AT)).toBe(0);

    await expect(metrics.refresh()).resolves.toEqual([]);
    expect(await valueOf(metrics, 'test_rows{state="pending"}')).toBe(1);
    expect(await valueOf(metrics, 'agentline_database_up')).toBe(1);
    expect(await valueOf(metrics, READ_AT)).toBe(1_700_000_000);
    expect(reads).toBe(1);

    outage = true;
    clock.advance(15_000);
    const failures = await metrics.refresh();
    expect(failures).toEqual([new Error('connection terminated')]);
    expect(await valueOf(metrics, 'test_rows{state="pending"}')).toBe(1);
    expect(await valueOf(metrics, 'agentline_database_up')).toBe(0);
    // The values are those of the last read that succeeded, and say when it was.
    expect(await valueOf(metrics, READ_AT)).toBe(1_700_000_000);

    outage = false;
    clock.advance(15_000);
    await metrics.refresh();
    expect(await valueOf(metrics, 'test_rows{state="pending"}')).toBe(3);
    expect(await valueOf(metrics, 'agentline_database_up')).toBe(1);
    expect(await valueOf(metrics, READ_AT)).toBe(1_700_000_030);
  });

  it('drop a series the last successful read did not set', async () => {
    const metrics = new Metrics(new ManualClock());
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

describe('Metrics: what runs', () => {
  it('says the build in agentline_build_info, and has no gauge named like a counter', async () => {
    const text = await new Metrics(new ManualClock()).registry.metrics();
    const { version } = JSON.parse(readFileSync(join(findRepoRoot(), 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(text.split('\n').filter((line) => line.startsWith('agentline_build_info'))).toEqual([
      `agentline_build_info{version="${version}",node_version="${process.version}"} 1`,
    ]);
    // promtool refuses _total on a gauge; prom-client's three such are left out.
    const gaugesNamedTotal = text
      .split('\n')
      .filter((line) => /^# TYPE \S+_total gauge$/.test(line));
    expect(gaugesNamedTotal).toEqual([]);
    expect(text).toContain('# TYPE nodejs_active_handles gauge');
  });
});
