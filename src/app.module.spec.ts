import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfiguration } from './app.module';

describe('readConfiguration', () => {
  const env = (vars: Record<string, string> = {}) => ({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'agentline-config-')),
    ...vars,
  });

  it('reads every module’s configuration from one environment', () => {
    const config = readConfiguration(
      env({ GRAPH_API_TIMEOUT_MS: '2000', SCHEDULER_TICK_MS: '250' }),
    );
    expect(config.app.port).toBe(3000);
    expect(config.channels.sendTimeoutMs).toBe(2_000);
    expect(config.scheduler.tickMs).toBe(250);
  });

  it.each([
    ['the app', { PORT: 'eighty' }, /^Invalid configuration: PORT: /],
    ['channels', { GRAPH_API_URL: 'not a url' }, /^Invalid configuration: GRAPH_API_URL: /],
    [
      'the scheduler',
      { DELIVERY_MAX_ATTEMPTS: '0' },
      /^Invalid configuration: DELIVERY_MAX_ATTEMPTS: /,
    ],
    [
      'across modules',
      { SHUTDOWN_GRACE_MS: '5000', GRAPH_API_TIMEOUT_MS: '5000' },
      /^SHUTDOWN_GRACE_MS \(5000\) must be at least 6000/,
    ],
  ])('fails on a bad value of %s with one line naming it', (_module, vars, message) => {
    expect(() => readConfiguration(env(vars))).toThrow(message);
  });
});
