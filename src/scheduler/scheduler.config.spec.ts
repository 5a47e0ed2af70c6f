import { readChannelsConfig } from '../channels/channels.config';
import { ConfigError } from '../config/environment';
import { readSchedulerConfig } from './scheduler.config';

/** The scheduler's reader with the channels' configuration read from the same environment. */
const read = (env: NodeJS.ProcessEnv = {}) => readSchedulerConfig(env, readChannelsConfig(env));

describe('readSchedulerConfig', () => {
  it('starts with nothing set: scheduler on, templates, defaults from README', () => {
    expect(read()).toEqual({
      enabled: true,
      tickMs: 1000,
      delivery: {
        concurrency: 32,
        maxAttempts: 8,
        leaseMs: 60_000,
        channelRateLimitPerSecond: 80,
        heartbeatMs: 2_000,
        heartbeatTimeoutMs: 6_000,
      },
      llm: undefined,
      shutdownGraceMs: 15_000,
    });
  });

  it('names what is wrong with a bad value', () => {
    expect(() => read({ SCHEDULER_TICK_MS: '5' })).toThrow(/SCHEDULER_TICK_MS/);
    expect(() => read({ SCHEDULER_ENABLED: 'maybe' })).toThrow(ConfigError);
    expect(() => read({ DELIVERY_CONCURRENCY: '0' })).toThrow(/DELIVERY_CONCURRENCY/);
  });

  it('reads the LLM composer, its URL without a trailing slash', () => {
    expect(
      read({ AGENT_LLM_URL: 'https://llm.example.com/v1/', AGENT_LLM_API_KEY: 'k' }).llm,
    ).toEqual({
      url: 'https://llm.example.com/v1',
      model: 'gpt-4o-mini',
      apiKey: 'k',
      timeoutMs: 15_000,
    });
  });

  it('keeps a lease longer than one send: the channels’ send time-out, the LLM’s, and 2 s', () => {
    expect(() => read({ DELIVERY_LEASE_MS: '11999' })).toThrow(
      'DELIVERY_LEASE_MS (11999) must be at least 12000: the Graph API time-out plus 2 s',
    );
    expect(() =>
      read({ DELIVERY_LEASE_MS: '20000', AGENT_LLM_URL: 'https://llm.example.com/v1' }),
    ).toThrow(/must be at least 27000: the Graph API time-out plus the LLM time-out plus 2 s/);
    expect(read({ DELIVERY_LEASE_MS: '8000', GRAPH_API_TIMEOUT_MS: '1000' }).delivery.leaseMs).toBe(
      8_000,
    );
  });

  it('keeps the shutdown grace period above the Graph time-out, and heartbeats consistent', () => {
    expect(() => read({ SHUTDOWN_GRACE_MS: '10000' })).toThrow(
      'SHUTDOWN_GRACE_MS (10000) must be at least 11000: GRAPH_API_TIMEOUT_MS (10000) plus 1000 ms to record the outcomes',
    );
    expect(() => read({ SHUTDOWN_GRACE_MS: '3000', GRAPH_API_TIMEOUT_MS: '2000' })).not.toThrow();
    // The grace period only governs the scheduler's shutdown.
    expect(() => read({ SHUTDOWN_GRACE_MS: '0', SCHEDULER_ENABLED: 'false' })).not.toThrow();
    expect(() =>
      read({ DELIVERY_HEARTBEAT_MS: '2000', DELIVERY_HEARTBEAT_TIMEOUT_MS: '3000' }),
    ).toThrow(
      /DELIVERY_HEARTBEAT_TIMEOUT_MS \(3000\) must be at least twice DELIVERY_HEARTBEAT_MS/,
    );
    expect(() =>
      read({ DELIVERY_LEASE_MS: '13000', DELIVERY_HEARTBEAT_TIMEOUT_MS: '12000' }),
    ).toThrow(
      /DELIVERY_LEASE_MS \(13000\) must be at least 14000: DELIVERY_HEARTBEAT_TIMEOUT_MS plus DELIVERY_HEARTBEAT_MS/,
    );
  });
});
