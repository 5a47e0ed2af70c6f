import { ConfigError } from '../config/environment';
import { readSandboxConfig } from './sandbox.config';

describe('readSandboxConfig', () => {
  it('is off unless asked, with no secret of its own', () => {
    expect(readSandboxConfig({})).toEqual({ enabled: false, statusDelayMs: 1500 });
    expect(readSandboxConfig({ META_SANDBOX: 'false' }).enabled).toBe(false);
  });

  it('generates one app secret per process when META_APP_SECRET is not set', () => {
    const first = readSandboxConfig({ META_SANDBOX: 'true' });
    expect(first).toMatchObject({ enabled: true, statusDelayMs: 1500 });
    expect(first.generatedAppSecret).toMatch(/^[\w-]{43}$/);
    expect(readSandboxConfig({ META_SANDBOX: '1' }).generatedAppSecret).toBe(
      first.generatedAppSecret,
    );
    expect(
      readSandboxConfig({ META_SANDBOX: 'true', META_APP_SECRET: 'an-app-secret' })
        .generatedAppSecret,
    ).toBeUndefined();
  });

  it('refuses a real GRAPH_API_URL beside it, in one line', () => {
    const read = () =>
      readSandboxConfig({
        META_SANDBOX: 'true',
        GRAPH_API_URL: 'https://graph.facebook.com/v23.0',
      });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/META_SANDBOX=true and GRAPH_API_URL are both set/);
    // Off, GRAPH_API_URL is the channels' business alone.
    expect(readSandboxConfig({ GRAPH_API_URL: 'https://graph.facebook.com/v23.0' }).enabled).toBe(
      false,
    );
  });

  it('names a bad value', () => {
    expect(() => readSandboxConfig({ META_SANDBOX: 'yes please' })).toThrow(/META_SANDBOX: /);
    expect(() => readSandboxConfig({ SANDBOX_STATUS_DELAY_MS: '-1' })).toThrow(
      /SANDBOX_STATUS_DELAY_MS: /,
    );
  });
});
