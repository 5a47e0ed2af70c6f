import { Inject, Injectable } from '@nestjs/common';
import { ConfigError } from '../../config/environment';
import { TOOLS_CONFIG, ToolsConfig } from '../tools.config';
import { oauth2EnvironmentId, OAuth2ProviderSettings } from './oauth2.config';

/** The endpoints and defaults of a well-known provider; credentials always come from the environment. */
export interface OAuth2ProviderPreset {
  authorizeUrl: string;
  tokenUrl: string;
  /** Requested with every tool's scopes. */
  scopes: string[];
  /** Extra authorization request parameters. */
  authorizeParams?: Record<string, string>;
  /** How `scope` is joined in the authorization request (Slack documents commas). */
  scopeSeparator?: ' ' | ',';
}

export const OAUTH2_PROVIDER_PRESETS: Readonly<Record<string, OAuth2ProviderPreset>> = {
  google: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopes: ['openid', 'email'],
    // Google issues a refresh token only for offline access, and again only when consent is shown.
    authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  },
  github: {
    authorizeUrl: 'https://github.com/login/oauth/authorize',
    // Answers form-encoded unless asked for JSON; the token client always sends Accept: application/json.
    tokenUrl: 'https://github.com/login/oauth/access_token',
    scopes: [],
  },
  slack: {
    authorizeUrl: 'https://slack.com/oauth/v2/authorize',
    tokenUrl: 'https://slack.com/api/oauth.v2.access',
    scopes: [],
    scopeSeparator: ',',
  },
  microsoft: {
    authorizeUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    // Microsoft issues refresh tokens only with offline_access.
    scopes: ['openid', 'offline_access'],
  },
};

/** A provider agentline can send users to: endpoints, defaults and client credentials. */
export interface OAuth2Provider extends OAuth2ProviderPreset {
  id: string;
  clientId: string;
  clientSecret: string;
  scopeSeparator: ' ' | ',';
}

export type OAuth2ProviderLookup =
  { configured: true; provider: OAuth2Provider } | { configured: false; reason: string };

/**
 * The OAuth2 providers: presets merged with `OAUTH_<ID>_*` settings. Built once at boot, so a
 * provider with credentials but no endpoints stops the service instead of failing a user later.
 */
@Injectable()
export class OAuth2ProviderRegistry {
  private readonly providers = new Map<string, OAuth2Provider>();
  private readonly partial = new Map<string, OAuth2ProviderSettings>();

  constructor(@Inject(TOOLS_CONFIG) config: ToolsConfig) {
    for (const [id, settings] of Object.entries(config.oauth2.providers)) {
      const preset = OAUTH2_PROVIDER_PRESETS[id];
      const authorizeUrl = settings.authorizeUrl ?? preset?.authorizeUrl;
      const tokenUrl = settings.tokenUrl ?? preset?.tokenUrl;
      if (!settings.clientId || !settings.clientSecret) {
        this.partial.set(id, settings);
        continue;
      }
      if (!authorizeUrl || !tokenUrl) {
        const env = oauth2EnvironmentId(id);
        throw new ConfigError(
          `OAuth2 provider '${id}' has no preset: set OAUTH_${env}_AUTHORIZE_URL and OAUTH_${env}_TOKEN_URL`,
        );
      }
      this.providers.set(id, {
        id,
        authorizeUrl,
        tokenUrl,
        scopes: settings.scopes ?? preset?.scopes ?? [],
        authorizeParams: preset?.authorizeParams ?? {},
        scopeSeparator: preset?.scopeSeparator ?? ' ',
        clientId: settings.clientId,
        clientSecret: settings.clientSecret,
      });
    }
  }

  find(providerId: string): OAuth2ProviderLookup {
    const id = oauth2EnvironmentId(providerId).toLowerCase();
    const provider = this.providers.get(id);
    if (provider) return { configured: true, provider };
    const env = oauth2EnvironmentId(providerId);
    const settings = this.partial.get(id) ?? {};
    const missing = [
      ...(settings.clientId ? [] : [`OAUTH_${env}_CLIENT_ID`]),
      ...(settings.clientSecret ? [] : [`OAUTH_${env}_CLIENT_SECRET`]),
      ...(OAUTH2_PROVIDER_PRESETS[id] || settings.authorizeUrl
        ? []
        : [`OAUTH_${env}_AUTHORIZE_URL`]),
      ...(OAUTH2_PROVIDER_PRESETS[id] || settings.tokenUrl ? [] : [`OAUTH_${env}_TOKEN_URL`]),
    ];
    const list =
      missing.length > 1
        ? `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}`
        : missing[0];
    return {
      configured: false,
      reason: `OAuth2 provider '${providerId}' is not configured: set ${list}`,
    };
  }
}
