import { hkdfSync } from 'node:crypto';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, isURL, Max, Min, MinLength } from 'class-validator';
import { ConfigError, readEnvironment, toInteger } from '../../config/environment';

/** The OAuth2 flow's own variables; the providers are `OAUTH_<ID>_*`, read by readOAuth2Providers. */
export class OAuth2Environment {
  // Absolute URLs: the callback redirects browsers there.
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OAUTH_SUCCESS_URL?: string;
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OAUTH_FAILURE_URL?: string;
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'OAUTH_STATE_SECRET must be at least 32 characters' })
  OAUTH_STATE_SECRET?: string;
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  OAUTH_HTTP_TIMEOUT_MS: number = 10_000;
}

/** What the environment says about one OAuth2 provider (`OAUTH_<ID>_*`); presets fill the rest. */
export interface OAuth2ProviderSettings {
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** Replaces the preset's default scopes. */
  scopes?: string[];
}

export interface OAuth2Config {
  /** By provider id: the `<ID>` of `OAUTH_<ID>_*`, lower case (`OAUTH_GOOGLE_CLIENT_ID` → `google`). */
  providers: Record<string, OAuth2ProviderSettings>;
  /** Where the callback redirects (with `tool_id` and `status`); unset: it answers an HTML page. */
  successUrl?: string;
  failureUrl?: string;
  /** HMAC key of the `state` parameter. */
  stateSecret: Buffer;
  /** Budget of one call to a token endpoint. */
  httpTimeoutMs: number;
}

const PROVIDER_VARIABLE =
  /^OAUTH_([A-Z0-9][A-Z0-9_]*?)_(CLIENT_ID|CLIENT_SECRET|AUTHORIZE_URL|TOKEN_URL|SCOPES)$/;

const FIELDS = {
  CLIENT_ID: 'clientId',
  CLIENT_SECRET: 'clientSecret',
  AUTHORIZE_URL: 'authorizeUrl',
  TOKEN_URL: 'tokenUrl',
  SCOPES: 'scopes',
} as const;

/** The `<ID>` of a provider's variables: `google-workspace` is set with `OAUTH_GOOGLE_WORKSPACE_*`. */
export const oauth2EnvironmentId = (providerId: string): string =>
  providerId.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/**
 * Reads every `OAUTH_<ID>_{CLIENT_ID,CLIENT_SECRET,AUTHORIZE_URL,TOKEN_URL,SCOPES}` variable.
 * Returns the settings, or the names of the variables whose values are not usable.
 */
export function readOAuth2Providers(env: Record<string, string | undefined>): {
  providers: Record<string, OAuth2ProviderSettings>;
  errors: string[];
} {
  const providers: Record<string, OAuth2ProviderSettings> = {};
  const errors: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    const match = PROVIDER_VARIABLE.exec(name);
    if (!match || raw === undefined) continue;
    const id = match[1].toLowerCase();
    const field = FIELDS[match[2] as keyof typeof FIELDS];
    const value = raw.trim();
    const settings = (providers[id] ??= {});
    if (field === 'scopes') {
      // Space- or comma-separated, as providers document them.
      settings.scopes = value.split(/[\s,]+/).filter(Boolean);
    } else if (field === 'authorizeUrl' || field === 'tokenUrl') {
      if (
        !isURL(value, { require_tld: false, protocols: ['http', 'https'], require_protocol: true })
      )
        errors.push(`${name}: must be an http(s) URL`);
      settings[field] = value;
    } else {
      settings[field] = value;
    }
  }
  return { providers, errors };
}

/** Without OAUTH_STATE_SECRET the state key is derived from ENCRYPTION_KEY, so nothing new is required. */
export function oauth2StateSecret(explicit: string | undefined, encryptionKey: Buffer): Buffer {
  if (explicit) return Buffer.from(explicit, 'utf8');
  return Buffer.from(
    hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'agentline oauth2 state', 32),
  );
}

/** The OAuth2 configuration; the state key defaults to one derived from `encryptionKey`. */
export function readOAuth2Config(env: NodeJS.ProcessEnv, encryptionKey: Buffer): OAuth2Config {
  const vars = readEnvironment(OAuth2Environment, env);
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const { providers, errors } = readOAuth2Providers(present);
  if (errors.length > 0) throw new ConfigError(`Invalid configuration: ${errors.join('; ')}`);
  return {
    providers,
    successUrl: vars.OAUTH_SUCCESS_URL,
    failureUrl: vars.OAUTH_FAILURE_URL,
    stateSecret: oauth2StateSecret(vars.OAUTH_STATE_SECRET, encryptionKey),
    httpTimeoutMs: vars.OAUTH_HTTP_TIMEOUT_MS,
  };
}
