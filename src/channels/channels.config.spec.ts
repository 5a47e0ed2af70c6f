import { readChannelsConfig } from './channels.config';

describe('readChannelsConfig', () => {
  it('defaults to Meta’s Graph API, v23.0, a 10 s send time-out, no app secret and the contract’s keywords', () => {
    const config = readChannelsConfig({});
    expect(config).toMatchObject({
      graphApiUrl: 'https://graph.facebook.com/v23.0',
      sendTimeoutMs: 10_000,
      mediaMaxBytes: 104_857_600,
      metaAppSecrets: [],
    });
    expect([...config.optOutKeywords]).toEqual([
      'STOP',
      'STOPALL',
      'UNSUBSCRIBE',
      'CANCEL',
      'END',
      'QUIT',
    ]);
    expect([...config.optInKeywords]).toEqual(['START', 'UNSTOP', 'SUBSCRIBE']);
  });

  it('reads GRAPH_API_URL without its trailing slash, and GRAPH_API_TIMEOUT_MS', () => {
    expect(
      readChannelsConfig({
        GRAPH_API_URL: 'http://127.0.0.1:9/v23.0/',
        GRAPH_API_TIMEOUT_MS: '300',
      }),
    ).toMatchObject({ graphApiUrl: 'http://127.0.0.1:9/v23.0', sendTimeoutMs: 300 });
  });

  it('reads META_APP_SECRET and the keywords as comma-separated lists', () => {
    const config = readChannelsConfig({
      META_APP_SECRET: 'first-secret-1, second-secret-2',
      OPT_OUT_KEYWORDS: 'stop, baja',
      OPT_IN_KEYWORDS: 'alta',
    });
    expect(config.metaAppSecrets).toEqual(['first-secret-1', 'second-secret-2']);
    expect([...config.optOutKeywords]).toEqual(['STOP', 'BAJA']);
    expect([...config.optInKeywords]).toEqual(['ALTA']);
  });

  it('reads MEDIA_MAX_BYTES, at least 1', () => {
    expect(readChannelsConfig({ MEDIA_MAX_BYTES: '1048576' }).mediaMaxBytes).toBe(1_048_576);
    expect(() => readChannelsConfig({ MEDIA_MAX_BYTES: '0' })).toThrow(/MEDIA_MAX_BYTES: /);
    expect(() => readChannelsConfig({ MEDIA_MAX_BYTES: '1.5' })).toThrow(/MEDIA_MAX_BYTES: /);
  });

  it('reads TEMPLATE_SYNC_MS: 15 minutes by default, 0 turns the periodic sync off', () => {
    expect(readChannelsConfig({}).templateSyncMs).toBe(900_000);
    expect(readChannelsConfig({ TEMPLATE_SYNC_MS: '0' }).templateSyncMs).toBe(0);
    expect(readChannelsConfig({ TEMPLATE_SYNC_MS: '60000' }).templateSyncMs).toBe(60_000);
    expect(() => readChannelsConfig({ TEMPLATE_SYNC_MS: '-1' })).toThrow(/TEMPLATE_SYNC_MS: /);
    expect(() => readChannelsConfig({ TEMPLATE_SYNC_MS: 'soon' })).toThrow(/TEMPLATE_SYNC_MS: /);
  });

  it('names a bad value', () => {
    expect(() => readChannelsConfig({ GRAPH_API_URL: 'not a url' })).toThrow(
      /^Invalid configuration: GRAPH_API_URL: /,
    );
    expect(() => readChannelsConfig({ GRAPH_API_TIMEOUT_MS: '10' })).toThrow(
      /GRAPH_API_TIMEOUT_MS: GRAPH_API_TIMEOUT_MS must not be less than 100/,
    );
    expect(() => readChannelsConfig({ META_APP_SECRET: 'short' })).toThrow(/META_APP_SECRET: /);
  });
});
