import { availableParallelism, tmpdir } from 'node:os';
import { loadConfig } from '../config/app-config';
import { ConfigError } from '../config/environment';
import { readToolsConfig } from './tools.config';

const key = Buffer.alloc(32, 1).toString('base64');
const base = {
  DATA_DIR: tmpdir(),
  JWT_SECRET: 'a-test-secret-that-is-long-enough-0123456789',
  ENCRYPTION_KEY: key,
};

/** ToolsModule's configuration, read as at boot: after the shared one, from the same variables. */
const read = (env: Record<string, string> = {}) =>
  readToolsConfig({ ...base, ...env }, loadConfig({ ...base, ...env }));

describe('readToolsConfig', () => {
  it('has defaults', () => {
    const config = read();
    expect(config.mcp).toEqual({ servers: [], refreshMs: 300_000 });
    expect(config.toolExecution).toEqual({
      timeoutMs: 30_000,
      // The cores less one, between 1 and 4.
      workerThreads: Math.max(1, Math.min(4, availableParallelism() - 1)),
    });
  });

  it('reads the MCP servers and the intervals', () => {
    const config = read({
      MCP_SERVERS: JSON.stringify([{ id: 'a', command: 'x' }]),
      MCP_REFRESH_MS: '60000',
      TOOL_EXECUTION_TIMEOUT_MS: '5000',
      TOOL_WORKER_THREADS: '3',
    });
    expect(config.mcp.servers.map((s) => s.id)).toEqual(['a']);
    expect(config.mcp.refreshMs).toBe(60_000);
    expect(config.toolExecution).toEqual({ timeoutMs: 5000, workerThreads: 3 });
    expect(() => read({ TOOL_WORKER_THREADS: '0' })).toThrow(ConfigError);
  });

  it('stops the boot on a bad server list, naming the problem', () => {
    expect(() => read({ MCP_SERVERS: '[{"id":"a"}]' })).toThrow(ConfigError);
    expect(() => read({ MCP_SERVERS: '[{"id":"a"}]' })).toThrow(
      /Invalid configuration: MCP_SERVERS\[0\]: set exactly one of "command"/,
    );
    expect(() => read({ MCP_REFRESH_MS: '10' })).toThrow(/MCP_REFRESH_MS/);
  });

  it('reads OAuth2 providers from OAUTH_<ID>_* and derives the state key when unset', () => {
    const config = read({
      OAUTH_GOOGLE_CLIENT_ID: 'google-id',
      OAUTH_GOOGLE_CLIENT_SECRET: 'google-secret',
      OAUTH_ACME_IDP_AUTHORIZE_URL: 'https://idp.example.com/authorize',
      OAUTH_ACME_IDP_TOKEN_URL: 'https://idp.example.com/token',
      OAUTH_ACME_IDP_SCOPES: 'openid, profile email',
      OAUTH_SUCCESS_URL: 'https://app.example.com/connected',
    });
    expect(config.oauth2).toMatchObject({
      providers: {
        google: { clientId: 'google-id', clientSecret: 'google-secret' },
        acme_idp: {
          authorizeUrl: 'https://idp.example.com/authorize',
          tokenUrl: 'https://idp.example.com/token',
          scopes: ['openid', 'profile', 'email'],
        },
      },
      successUrl: 'https://app.example.com/connected',
      failureUrl: undefined,
      httpTimeoutMs: 10_000,
    });
    // OAUTH_SUCCESS_URL and friends are not providers.
    expect(Object.keys(config.oauth2.providers).sort()).toEqual(['acme_idp', 'google']);
    expect(config.oauth2.stateSecret).toHaveLength(32);
    expect(config.oauth2.stateSecret.equals(Buffer.from(key, 'base64'))).toBe(false);
    expect(read().oauth2.stateSecret).toEqual(config.oauth2.stateSecret);
    const explicit = read({ OAUTH_STATE_SECRET: 'x'.repeat(32) });
    expect(explicit.oauth2.stateSecret.toString()).toBe('x'.repeat(32));
  });

  it('names a bad OAuth2 value', () => {
    expect(() => read({ OAUTH_GOOGLE_TOKEN_URL: 'not a url' })).toThrow(
      /OAUTH_GOOGLE_TOKEN_URL: must be an http\(s\) URL/,
    );
    expect(() => read({ OAUTH_STATE_SECRET: 'short' })).toThrow(
      /OAUTH_STATE_SECRET must be at least 32 characters/,
    );
    expect(() => read({ OAUTH_FAILURE_URL: 'nowhere' })).toThrow(/OAUTH_FAILURE_URL/);
  });

  it("reads each built-in toolkit's environment, naming a bad value", () => {
    expect(read().toolkits.map((toolkit) => toolkit.name)).toEqual(
      expect.arrayContaining(['Weather', 'Search', 'Github', 'Slack', 'Google', 'Text', 'Math']),
    );
    expect(() => read({ OPENWEATHER_API_URL: 'not a url' })).toThrow(
      /Invalid configuration: OPENWEATHER_API_URL/,
    );
    expect(() => read({ SLACK_API_URL: 'ftp://slack.example' })).toThrow(/SLACK_API_URL/);
  });
});
