import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface OidcProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Scope names the server accepts besides openid and offline_access. */
  scopes: string[];
  accessTokenTtl?: number;
  /** Every refresh issues a new refresh token; the old one is consumed (its reuse revokes the grant). */
  rotateRefreshTokens?: boolean;
}

export interface OidcControl {
  consent?: 'grant' | 'deny';
  token?: 'ok' | 'error500' | 'garbage' | 'hang';
  /** A scope the user unticks on the consent screen; null grants everything again. */
  withhold?: string | null;
  revokeRefreshTokens?: boolean;
}

/** A real OAuth2 / OpenID Connect server (oidc-provider) in a child process on loopback. */
export interface OidcProvider {
  url: string;
  control: (change: OidcControl) => Promise<void>;
  /** The userinfo endpoint's answer for an access token: proves the token is real and live. */
  userinfo: (accessToken: string) => Promise<{ status: number; body: Record<string, unknown> }>;
  close: () => Promise<void>;
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcProvider> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'oidc-provider-server.mjs'), JSON.stringify(options)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}): ${stderr}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    control: async (change) => {
      const res = await fetch(`${url}/control`, { method: 'POST', body: JSON.stringify(change) });
      if (res.status !== 204) throw new Error(`control answered ${res.status}`);
    },
    userinfo: async (accessToken) => {
      const res = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A user's browser: follows an authorization URL through the provider's redirects, keeping its
 * cookies, and stops at the first URL under `stopAt` (our callback), which it returns unvisited.
 */
export async function followToCallback(start: string, stopAt: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(stopAt)) return new URL(url);
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) {
      throw new Error(`the provider stopped at ${res.status}: ${(await res.text()).slice(0, 500)}`);
    }
    url = new URL(location, url).toString();
  }
  throw new Error('too many redirects');
}

/** What tests register at the provider as agentline's `google` client. */
export const GOOGLE_STAND_IN = {
  publicUrl: 'http://agentline.test',
  callback: 'http://agentline.test/v1/oauth2/callback',
  clientId: 'agentline-test-client',
  clientSecret: 'agentline-test-client-secret-0123456789',
  gmailSend: 'https://www.googleapis.com/auth/gmail.send',
};

/** A provider with agentline's test client registered; it grants gmail.send unless told more. */
export const startGoogleStandIn = (options: Partial<OidcProviderOptions> = {}) =>
  startOidcProvider({
    clientId: GOOGLE_STAND_IN.clientId,
    clientSecret: GOOGLE_STAND_IN.clientSecret,
    redirectUri: GOOGLE_STAND_IN.callback,
    scopes: [GOOGLE_STAND_IN.gmailSend],
    ...options,
  });

/** The environment that makes the test's provider agentline's `google`. */
export const googleEnv = (oidc: OidcProvider) => ({
  PUBLIC_URL: GOOGLE_STAND_IN.publicUrl,
  OAUTH_GOOGLE_CLIENT_ID: GOOGLE_STAND_IN.clientId,
  OAUTH_GOOGLE_CLIENT_SECRET: GOOGLE_STAND_IN.clientSecret,
  OAUTH_GOOGLE_AUTHORIZE_URL: `${oidc.url}/auth`,
  OAUTH_GOOGLE_TOKEN_URL: `${oidc.url}/token`,
  OAUTH_GOOGLE_SCOPES: 'openid offline_access',
  OAUTH_HTTP_TIMEOUT_MS: '1500',
});
