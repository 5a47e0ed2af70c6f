import { hkdfSync } from 'node:crypto';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, isURL, Max, Min, MinLength } from 'class-validator';
import {
  declareEnvPattern,
  Env,
  EnvGroup,
  EnvPatternDeclaration,
} from '../../config/env-declaration';
import { ConfigError, readEnvironment, toInteger } from '../../config/environment';

const OAUTH2_ENV_GROUP = 'OAuth2 for tools';

/** The OAuth2 flow's own variables; the providers are `OAUTH_<ID>_*`, read by readOAuth2Providers. */
@EnvGroup(OAUTH2_ENV_GROUP)
export class OAuth2Environment {
  // Absolute URLs: the callback redirects browsers there.
  @Env(
    'Where the OAuth2 callback redirects the browser after a success (with `tool_id` and `status`); unset: it shows a small page.',
  )
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OAUTH_SUCCESS_URL?: string;
  @Env(
    'Where the OAuth2 callback redirects the browser after a failure (with `tool_id`, `status` and `error`); unset: it shows a small page.',
  )
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  OAUTH_FAILURE_URL?: string;
  @Env('HMAC key of the OAuth2 `state` parameter.', {
    secret: true,
    default: 'derived from ENCRYPTION_KEY (HKDF)',
  })
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'OAUTH_STATE_SECRET must be at least 32 characters' })
  OAUTH_STATE_SECRET?: string;
  @Env("Time-out of one call to a provider's token endpoint.")
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

const FIELDS = {
  CLIENT_ID: 'clientId',
  CLIENT_SECRET: 'clientSecret',
  AUTHORIZE_URL: 'authorizeUrl',
  TOKEN_URL: 'tokenUrl',
  SCOPES: 'scopes',
} as const;

const PROVIDER_VARIABLE = new RegExp(
  `^OAUTH_([A-Z0-9][A-Z0-9_]*?)_(${Object.keys(FIELDS).join('|')})$`,
);

const PRESETS = '`google`, `github`, `slack`, `microsoft`';
const FIELD_DECLARATIONS: Record<keyof typeof FIELDS, Omit<EnvPatternDeclaration, 'name'>> = {
  CLIENT_ID: {
    description:
      'Client id at OAuth2 provider `<id>` (`OAUTH_GOOGLE_CLIENT_ID`); a provider without both id and secret is not configured, and its tools stay `not_started`.',
    type: 'string',
  },
  CLIENT_SECRET: {
    description: 'Client secret at OAuth2 provider `<id>`.',
    type: 'string',
    secret: true,
  },
  AUTHORIZE_URL: {
    description: `Authorization endpoint of provider \`<id>\`: overrides the preset of ${PRESETS}, required for any other provider.`,
    type: 'URL',
    default: "the preset's",
  },
  TOKEN_URL: {
    description: `Token endpoint of provider \`<id>\`: overrides the preset of ${PRESETS}, required for any other provider.`,
    type: 'URL',
    default: "the preset's",
  },
  SCOPES: {
    description: "Default scopes asked of provider `<id>`, replacing the preset's.",
    type: 'space- or comma-separated strings',
    default: "the preset's",
  },
};
for (const [field, declaration] of Object.entries(FIELD_DECLARATIONS)) {
  declareEnvPattern(OAUTH2_ENV_GROUP, { name: `OAUTH_<ID>_${field}`, ...declaration });
}

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
