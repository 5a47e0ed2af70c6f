import { ConfigError } from '../../config/environment';
import { ToolsConfig } from '../tools.config';
import { OAuth2ProviderSettings } from './oauth2.config';
import { OAuth2ProviderRegistry } from './oauth2-provider.registry';

const registry = (providers: Record<string, OAuth2ProviderSettings>) =>
  new OAuth2ProviderRegistry({
    oauth2: { providers, stateSecret: Buffer.alloc(32), httpTimeoutMs: 1000 },
  } as unknown as ToolsConfig);

const credentials = { clientId: 'id', clientSecret: 'secret' };

describe('OAuth2ProviderRegistry', () => {
  it('configures a preset from its client credentials alone', () => {
    const found = registry({ google: credentials }).find('google');
    expect(found).toEqual({
      configured: true,
      provider: expect.objectContaining({
        id: 'google',
        authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenUrl: 'https://oauth2.googleapis.com/token',
        authorizeParams: expect.objectContaining({ access_type: 'offline', prompt: 'consent' }),
        clientId: 'id',
        clientSecret: 'secret',
        scopeSeparator: ' ',
      }),
    });
  });

  it.each([
    [
      'github',
      'https://github.com/login/oauth/authorize',
      'https://github.com/login/oauth/access_token',
    ],
    ['slack', 'https://slack.com/oauth/v2/authorize', 'https://slack.com/api/oauth.v2.access'],
    [
      'microsoft',
      'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
      'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    ],
  ])('knows the endpoints of %s', (id, authorizeUrl, tokenUrl) => {
    expect(registry({ [id]: credentials }).find(id)).toMatchObject({
      configured: true,
      provider: { authorizeUrl, tokenUrl },
    });
  });

  it('asks Microsoft for offline_access and joins Slack scopes with commas', () => {
    const providers = registry({ microsoft: credentials, slack: credentials });
    expect(providers.find('microsoft')).toMatchObject({
      provider: { scopes: expect.arrayContaining(['offline_access']) },
    });
    expect(providers.find('slack')).toMatchObject({ provider: { scopeSeparator: ',' } });
  });

  it('lets the environment override a preset', () => {
    const found = registry({
      google: {
        ...credentials,
        authorizeUrl: 'http://127.0.0.1:9000/auth',
        tokenUrl: 'http://127.0.0.1:9000/token',
        scopes: ['openid'],
      },
    }).find('google');
    expect(found).toMatchObject({
      configured: true,
      provider: {
        authorizeUrl: 'http://127.0.0.1:9000/auth',
        tokenUrl: 'http://127.0.0.1:9000/token',
        scopes: ['openid'],
        authorizeParams: { access_type: 'offline' },
      },
    });
  });

  it('configures a provider without a preset from its four variables', () => {
    const providers = registry({
      acme_idp: { ...credentials, authorizeUrl: 'https://idp/a', tokenUrl: 'https://idp/t' },
    });
    expect(providers.find('acme-idp')).toMatchObject({
      configured: true,
      provider: { id: 'acme_idp', scopes: [] },
    });
  });

  it('names the missing variables of a provider that is not configured', () => {
    const providers = registry({ slack: { clientId: 'id' } });
    expect(providers.find('google')).toEqual({
      configured: false,
      reason:
        "OAuth2 provider 'google' is not configured: set OAUTH_GOOGLE_CLIENT_ID and OAUTH_GOOGLE_CLIENT_SECRET",
    });
    expect(providers.find('slack')).toEqual({
      configured: false,
      reason: "OAuth2 provider 'slack' is not configured: set OAUTH_SLACK_CLIENT_SECRET",
    });
    expect(providers.find('notion')).toEqual({
      configured: false,
      reason:
        "OAuth2 provider 'notion' is not configured: set OAUTH_NOTION_CLIENT_ID, OAUTH_NOTION_CLIENT_SECRET, OAUTH_NOTION_AUTHORIZE_URL and OAUTH_NOTION_TOKEN_URL",
    });
  });

  it('stops the boot for credentials without endpoints', () => {
    expect(() => registry({ notion: credentials })).toThrow(ConfigError);
    expect(() => registry({ notion: credentials })).toThrow(
      /OAUTH_NOTION_AUTHORIZE_URL and OAUTH_NOTION_TOKEN_URL/,
    );
  });
});
