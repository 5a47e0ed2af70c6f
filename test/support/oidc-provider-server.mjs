/*
 * A real OAuth2 / OpenID Connect authorization server for the e2e specs: oidc-provider (ESM-only,
 * hence this child process). Start: `node oidc-provider-server.mjs '<json options>'`; it listens
 * on 127.0.0.1:0 and prints `{"port": N}` on one line.
 *
 * Options: clientId, clientSecret, redirectUri, scopes (extra scope names it accepts),
 * accessTokenTtl (seconds), rotateRefreshTokens (true: every refresh issues a new refresh token and
 * consumes the old one; presenting a consumed one revokes the whole grant, as oidc-provider does).
 *
 * Besides the provider's own endpoints, the test steers it through POST /control (JSON body):
 *   { "consent": "grant" | "deny" }        what the next interactions answer (default grant)
 *   { "withhold": "<scope>" | null }       a scope the user unticks on the consent screen
 *   { "token": "ok" | "error500" | "garbage" | "hang" }   how POST /token behaves (default ok)
 *   { "revokeRefreshTokens": true }        destroys every refresh token issued so far
 * The interaction is a stand-in for a login and consent page: it signs in `user-1` and grants
 * every requested scope at once, or denies when told to.
 */
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const options = JSON.parse(process.argv[2] ?? '{}');
const state = { consent: 'grant', token: 'ok', withhold: null };
const refreshTokens = new Set();

let provider;

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

async function control(req, res) {
  const body = await readJson(req);
  if (body.consent) state.consent = body.consent;
  if (body.token) state.token = body.token;
  if ('withhold' in body) state.withhold = body.withhold;
  if (body.revokeRefreshTokens) {
    for (const value of refreshTokens) {
      const token = await provider.RefreshToken.find(value);
      if (token) await token.destroy();
    }
    refreshTokens.clear();
  }
  res.writeHead(204).end();
}

async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (state.consent === 'deny') {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user denied access' },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: 'user-1' } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({
        accountId: details.session.accountId,
        clientId: details.params.client_id,
      });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) {
    const granted = missing.missingOIDCScope.filter((scope) => scope !== state.withhold);
    grant.addOIDCScope(granted.join(' '));
    if (granted.length < missing.missingOIDCScope.length) grant.rejectOIDCScope(state.withhold);
  }
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  if (missing.missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes)) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
  }
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

function tokenFault(req, res) {
  switch (state.token) {
    case 'error500':
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"server_error"}');
      return true;
    case 'garbage':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>not a token</html>');
      return true;
    case 'hang':
      // Never answers; the client's time-out must end the call.
      req.on('close', () => res.destroy());
      return true;
    default:
      return false;
  }
}

const server = createServer((req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  const handle = async () => {
    if (req.method === 'POST' && path === '/control') return control(req, res);
    if (path.startsWith('/interaction/')) return interaction(req, res);
    if (req.method === 'POST' && path === '/token' && tokenFault(req, res)) return undefined;
    return provider.callback()(req, res);
  };
  handle().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    if (!res.headersSent) res.writeHead(500).end(String(error.message));
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    scopes: ['openid', 'offline_access', ...(options.scopes ?? [])],
    // Proves that the client sends a code_challenge and the matching code_verifier.
    pkce: { required: () => true },
    ...(options.rotateRefreshTokens && { rotateRefreshToken: true }),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
    cookies: { keys: ['agentline-test-cookie-key'] },
    ttl: {
      AccessToken: options.accessTokenTtl ?? 3600,
      AuthorizationCode: 60,
      Grant: 86_400,
      Interaction: 600,
      RefreshToken: 86_400,
      Session: 86_400,
    },
  });
  provider.on('refresh_token.saved', (token) => refreshTokens.add(token.jti));
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});

process.on('SIGTERM', () => server.close(() => process.exit(0)));
