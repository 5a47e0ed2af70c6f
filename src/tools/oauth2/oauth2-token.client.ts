import { OAuth2Provider } from './oauth2-provider.registry';

export interface OAuth2TokenSet {
  accessToken: string;
  /** Absent when the provider issues none, or keeps the one it issued before (no rotation). */
  refreshToken?: string;
  tokenType?: string;
  /** Seconds; absent when the provider says nothing about expiry. */
  expiresIn?: number;
  /** What the provider says it granted; absent means "what was requested" (RFC 6749 §5.1). */
  scopes?: string[];
}

/** What came of one call to a token endpoint; `token()` never throws. */
export type OAuth2TokenOutcome =
  | { kind: 'issued'; tokens: OAuth2TokenSet }
  /** The code or refresh token is no good (invalid_grant or a provider's equivalent). */
  | { kind: 'invalid_grant'; reason: string }
  /** Anything else: other OAuth2 errors, HTTP errors, time-outs, answers that are not tokens. */
  | { kind: 'error'; reason: string };

/** Error codes meaning "this code or refresh token is dead"; GitHub and Slack have their own names. */
const INVALID_GRANT_CODES: ReadonlySet<string> = new Set([
  'invalid_grant',
  'bad_verification_code',
  'bad_refresh_token',
  'invalid_code',
  'invalid_refresh_token',
  'code_already_used',
]);

/** Token responses are small; a bigger body is not a token response and must not fill memory. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** Only short codes from the provider reach reasons: descriptions could echo what we sent. */
const safeCode = (value: unknown): string =>
  typeof value === 'string' && /^[\w.-]{1,64}$/.test(value) ? value : 'unknown_error';

type Fields = Record<string, unknown>;

function parseBody(text: string, contentType: string): Fields | undefined {
  if (/application\/x-www-form-urlencoded/i.test(contentType)) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Fields)
      : undefined;
  } catch {
    return undefined;
  }
}

function toTokenSet(body: Fields): OAuth2TokenSet | undefined {
  const { access_token, refresh_token, token_type, expires_in, scope } = body;
  if (typeof access_token !== 'string' || access_token === '') return undefined;
  const expiresIn = typeof expires_in === 'string' ? Number(expires_in) : expires_in;
  return {
    accessToken: access_token,
    refreshToken: typeof refresh_token === 'string' && refresh_token ? refresh_token : undefined,
    tokenType: typeof token_type === 'string' ? token_type : undefined,
    expiresIn:
      typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0
        ? expiresIn
        : undefined,
    // Google separates scopes with spaces, GitHub and Slack with commas.
    scopes: typeof scope === 'string' ? scope.split(/[\s,]+/).filter(Boolean) : undefined,
  };
}

/**
 * Calls providers' token endpoints: form-encoded, client_secret_post, asking for JSON (GitHub
 * answers form-encoded otherwise). Reasons name statuses and error codes only, never a value sent.
 */
export class OAuth2TokenClient {
  constructor(private readonly timeoutMs: number) {}

  exchangeCode(
    provider: OAuth2Provider,
    code: string,
    codeVerifier: string,
    redirectUri: string,
  ): Promise<OAuth2TokenOutcome> {
    return this.token(provider, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    });
  }

  refresh(provider: OAuth2Provider, refreshToken: string): Promise<OAuth2TokenOutcome> {
    return this.token(provider, { grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  private async token(
    provider: OAuth2Provider,
    params: Record<string, string>,
  ): Promise<OAuth2TokenOutcome> {
    const who = `The token endpoint of provider '${provider.id}'`;
    let status: number;
    let body: Fields | undefined;
    try {
      const response = await fetch(provider.tokenUrl, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          ...params,
          client_id: provider.clientId,
          client_secret: provider.clientSecret,
        }),
        redirect: 'error',
        // Covers the body too: a provider that stalls mid-answer is cut off as well.
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      const length = Number(response.headers.get('content-length') ?? 0);
      if (length > MAX_RESPONSE_BYTES) {
        await response.body?.cancel();
        return { kind: 'error', reason: `${who} answered HTTP ${status} with an oversized body` };
      }
      const text = await response.text();
      body =
        text.length > MAX_RESPONSE_BYTES
          ? undefined
          : parseBody(text, response.headers.get('content-type') ?? '');
    } catch (error) {
      // By name, not instanceof: the abort is a DOMException, possibly from another realm.
      const name = (error as { name?: unknown } | null)?.name;
      return {
        kind: 'error',
        reason:
          name === 'TimeoutError' || name === 'AbortError'
            ? `${who} did not answer within ${this.timeoutMs} ms`
            : `${who} could not be reached`,
      };
    }
    // GitHub and Slack answer errors with 200: an `error` field (or Slack's ok: false) decides.
    const errorCode = body?.error ?? (body?.ok === false ? 'unknown_error' : undefined);
    if (errorCode !== undefined) {
      const code = safeCode(errorCode);
      return INVALID_GRANT_CODES.has(code)
        ? { kind: 'invalid_grant', reason: `${who} refused the grant (${code})` }
        : { kind: 'error', reason: `${who} answered HTTP ${status} with error ${code}` };
    }
    if (status < 200 || status >= 300) {
      return { kind: 'error', reason: `${who} answered HTTP ${status}` };
    }
    const tokens = body && toTokenSet(body);
    if (!tokens) {
      return { kind: 'error', reason: `${who} answered something that is not a token response` };
    }
    return { kind: 'issued', tokens };
  }
}
