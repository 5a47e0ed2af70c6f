import { readChannelsConfig } from './channels.config';

describe('readChannelsConfig', () => {
  it('defaults to Meta’s Graph API, v23.0, with a 10 s send time-out', () => {
    expect(readChannelsConfig({})).toEqual({
      graphApiUrl: 'https://graph.facebook.com/v23.0',
      sendTimeoutMs: 10_000,
    });
  });

  it('reads GRAPH_API_URL without its trailing slash, and GRAPH_API_TIMEOUT_MS', () => {
    expect(
      readChannelsConfig({
        GRAPH_API_URL: 'http://127.0.0.1:9/v23.0/',
        GRAPH_API_TIMEOUT_MS: '300',
      }),
    ).toEqual({ graphApiUrl: 'http://127.0.0.1:9/v23.0', sendTimeoutMs: 300 });
  });

  it('names a bad value', () => {
    expect(() => readChannelsConfig({ GRAPH_API_URL: 'not a url' })).toThrow(
      /^Invalid configuration: GRAPH_API_URL: /,
    );
    expect(() => readChannelsConfig({ GRAPH_API_TIMEOUT_MS: '10' })).toThrow(
      /GRAPH_API_TIMEOUT_MS: GRAPH_API_TIMEOUT_MS must not be less than 100/,
    );
  });
});
