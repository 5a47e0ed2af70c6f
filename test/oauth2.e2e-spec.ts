import { DataSource } from 'typeorm';
import { OAuth2GrantsService } from '../src/tools/oauth2/oauth2-grants.service';
import { aTool } from './support/factories';
import { ManualClock } from './support/manual-clock';
import {
  followToCallback,
  GOOGLE_STAND_IN,
  googleEnv,
  OidcProvider,
  startGoogleStandIn,
} from './support/oidc-provider';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const {
  callback: CALLBACK,
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  gmailSend: GMAIL_SEND,
} = GOOGLE_STAND_IN;
const GMAIL_READ = 'https://www.googleapis.com/auth/gmail.readonly';
const MINUTE = 60_000;
/** The provider's access token lifetime, in seconds. */
const ACCESS_TOKEN_TTL = 3600;

interface Tool {
  id: string;
  agent_id: string;
  name: string;
  authorization_status: string;
  oauth2_url: string;
}

interface Authorization {
  id: string;
  status: string;
  status_reason: string;
  token_status: string;
}

describe('OAuth2 authorization (e2e)', () => {
  let oidc: OidcProvider;
  let t: TestApp;
  let clock: ManualClock;
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    oidc = await startGoogleStandIn({
      scopes: [GMAIL_SEND, GMAIL_READ],
      accessTokenTtl: ACCESS_TOKEN_TTL,
    });
    clock = new ManualClock();
    t = await startApp(googleEnv(oidc), { clock });
  });
  afterAll(async () => {
    await t?.close();
    await oidc?.close();
  });
  beforeEach(() => {
    org = newOrganization();
    auth = bearer(tokenFor({ org, sub: 'bob' }));
  });
  afterEach(() => oidc.control({ consent: 'grant', token: 'ok', withhold: null }));

  const createTool = async (overrides: Record<string, unknown> = {}): Promise<Tool> =>
    (
      await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Google.SendEmail', ...overrides }))
        .expect(201)
    ).body.data;
  const getTool = async (id: string): Promise<Tool> =>
    (await t.http().get(`/v1/tools/${id}`).set(auth).expect(200)).body.data;
  const callback = (url: URL) => t.http().get(`${url.pathname}${url.search}`);
  const authorization = async (name: string, agent = 'agent-1'): Promise<Authorization> => {
    const page = (
      await t.http().get(`/v1/tools/specs?limit=200&agent_id=${agent}`).set(auth).expect(200)
    ).body.data;
    const spec = page.items.find(
      (item: { qualified_name: string }) => item.qualified_name === name,
    );
    return { ...spec.requirements.authorization, met: spec.requirements.met };
  };
  /** Attaches a tool and walks the user through consent; answers the tool and the callback URL. */
  const authorizeNew = async (overrides: Record<string, unknown> = {}) => {
    const tool = await createTool(overrides);
    expect(tool.authorization_status).toBe('pending');
    const url = await followToCallback(tool.oauth2_url, CALLBACK);
    return { tool, url, response: await callback(url) };
  };
  const grants = () => t.app.get(OAuth2GrantsService);

  describe('the authorization URL', () => {
    it('is the provider authorize URL with PKCE (S256), a signed state and our callback', async () => {
      const tool = await createTool();
      expect(tool).toMatchObject({ authorization_status: 'pending', agent_id: 'agent-1' });
      const url = new URL(tool.oauth2_url);
      expect(`${url.origin}${url.pathname}`).toBe(`${oidc.url}/auth`);
      const params = Object.fromEntries(url.searchParams);
      expect(params).toEqual({
        response_type: 'code',
        client_id: CLIENT_ID,
        redirect_uri: CALLBACK,
        scope: `openid offline_access ${GMAIL_SEND}`,
        state: expect.stringMatching(/^v1\.[\w-]+\.[\w-]{43}$/),
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        code_challenge_method: 'S256',
        // The Google preset's parameters survive an overridden authorize URL.
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
      });
      // The verifier stays on the server, sealed.
      const [row] = await t.app
        .get(DataSource)
        .query('SELECT code_verifier_encrypted, tool_id FROM oauth2_states WHERE tool_id = $1', [
          tool.id,
        ]);
      expect(row.code_verifier_encrypted).toMatch(/^v1\./);
      expect(await authorization('Google.SendEmail')).toMatchObject({
        id: tool.id,
        status: 'pending',
        token_status: 'not_started',
        met: false,
      });
    });

    it('gives a fresh URL on POST /v1/tools/{id}/authorize', async () => {
      const tool = await createTool();
      const res = await t.http().post(`/v1/tools/${tool.id}/authorize`).set(auth).expect(200);
      expect(res.body.data).toMatchObject({ id: tool.id, authorization_status: 'pending' });
      expect(res.body.data.oauth2_url).not.toBe(tool.oauth2_url);
      expect((await getTool(tool.id)).oauth2_url).toBe(res.body.data.oauth2_url);
    });
  });

  describe('the callback', () => {
    it('exchanges the code and completes the tool, keeping tokens sealed and out of logs', async () => {
      const { tool, url, response } = await authorizeNew();
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.text).toContain('Authorization complete');
      const code = url.searchParams.get('code')!;
      const state = url.searchParams.get('state')!;
      expect(response.text).not.toContain(code);

      expect(await getTool(tool.id)).toMatchObject({
        authorization_status: 'completed',
        oauth2_url: '',
      });
      expect(await authorization('Google.SendEmail')).toMatchObject({
        id: tool.id,
        status: 'completed',
        status_reason: '',
        token_status: 'active',
        met: true,
      });

      const accessToken = await grants().accessToken(org, 'agent-1', 'google');
      expect(accessToken).toEqual(expect.any(String));
      expect(await oidc.userinfo(accessToken!)).toMatchObject({
        status: 200,
        body: { sub: 'user-1' },
      });
      const [grant] = await t.app
        .get(DataSource)
        .query(
          'SELECT status, scopes, access_token_encrypted, refresh_token_encrypted FROM oauth2_grants WHERE organization_id = $1',
          [org],
        );
      expect(grant).toMatchObject({
        status: 'active',
        scopes: expect.stringContaining(GMAIL_SEND),
      });
      expect(grant.access_token_encrypted).toMatch(/^v1\./);
      expect(grant.refresh_token_encrypted).toMatch(/^v1\./);
      expect(grant.access_token_encrypted).not.toContain(accessToken);
      for (const secret of [code, state, accessToken!, CLIENT_SECRET])
        expect(t.logs()).not.toContain(secret);
    });

    it('completes at once a second tool whose scopes the grant covers, per agent', async () => {
      await authorizeNew();
      const again = await createTool();
      expect(again).toMatchObject({ authorization_status: 'completed', oauth2_url: '' });
      // Another agent of the organization holds nothing yet.
      expect((await createTool({ agent_id: 'agent-2' })).authorization_status).toBe('pending');
    });

    it('asks for the scopes already held too, and completes every pending tool it covers', async () => {
      await authorizeNew();
      const read1 = await createTool({ name: 'Google.ListEmails' });
      const read2 = await createTool({ name: 'Google.ListEmails' });
      expect(new URL(read1.oauth2_url).searchParams.get('scope')!.split(' ')).toEqual(
        expect.arrayContaining([GMAIL_SEND, GMAIL_READ]),
      );
      const res = await callback(await followToCallback(read1.oauth2_url, CALLBACK));
      expect(res.status).toBe(200);
      expect((await getTool(read1.id)).authorization_status).toBe('completed');
      expect((await getTool(read2.id)).authorization_status).toBe('completed');
      expect((await authorization('Google.SendEmail')).status).toBe('completed');
    });

    it('fails the tool when the user denies access', async () => {
      await oidc.control({ consent: 'deny' });
      const tool = await createTool();
      const url = await followToCallback(tool.oauth2_url, CALLBACK);
      expect(url.searchParams.get('error')).toBe('access_denied');
      const res = await callback(url);
      expect(res.status).toBe(400);
      expect(res.text).toContain('refused the authorization (access_denied)');
      expect(await getTool(tool.id)).toMatchObject({
        authorization_status: 'failed',
        oauth2_url: '',
      });
      expect(await authorization('Google.SendEmail')).toMatchObject({
        status: 'failed',
        status_reason: expect.stringContaining('access_denied'),
        token_status: 'not_started',
        met: false,
      });
    });

    it.each([
      ['a tampered signature', (state: string) => state.slice(0, -4) + 'AAAA'],
      [
        'a tampered payload',
        (state: string) => {
          const [v, , mac] = state.split('.');
          const forged = Buffer.from(JSON.stringify({ n: 'x', e: Date.now() + 1e9 }));
          return `${v}.${forged.toString('base64url')}.${mac}`;
        },
      ],
      ['garbage', () => '<script>alert(1)</script>'],
      ['no state', () => ''],
    ])('refuses %s and leaves the tool pending', async (_name, tamper) => {
      const tool = await createTool();
      const url = await followToCallback(tool.oauth2_url, CALLBACK);
      url.searchParams.set('state', tamper(url.searchParams.get('state')!));
      const res = await callback(url);
      expect(res.status).toBe(400);
      expect(res.text).toContain('not valid');
      expect(res.text).not.toContain('<script>');
      expect((await getTool(tool.id)).authorization_status).toBe('pending');
    });

    it('takes a state once: a replay is refused and the first result stands', async () => {
      const { tool, url, response } = await authorizeNew();
      expect(response.status).toBe(200);
      const replay = await callback(url);
      expect(replay.status).toBe(400);
      expect(replay.text).toContain('already used');
      expect((await getTool(tool.id)).authorization_status).toBe('completed');
    });

    it('lets only one of two simultaneous callbacks with the same state win', async () => {
      const tool = await createTool();
      const url = await followToCallback(tool.oauth2_url, CALLBACK);
      const statuses = (await Promise.all([callback(url), callback(url)])).map((r) => r.status);
      expect(statuses.sort()).toEqual([200, 400]);
      expect((await getTool(tool.id)).authorization_status).toBe('completed');
    });

    it('fails the tool when the state expired (10 minutes), and a new URL works', async () => {
      const tool = await createTool();
      const url = await followToCallback(tool.oauth2_url, CALLBACK);
      clock.advance(10 * MINUTE + 1000);
      const res = await callback(url);
      expect(res.status).toBe(400);
      expect(res.text).toContain('10 minutes');
      expect(await getTool(tool.id)).toMatchObject({ authorization_status: 'failed' });
      expect((await authorization('Google.SendEmail')).status_reason).toContain('10 minutes');

      const fresh = (await t.http().post(`/v1/tools/${tool.id}/authorize`).set(auth).expect(200))
        .body.data as Tool;
      expect(fresh.authorization_status).toBe('pending');
      expect((await callback(await followToCallback(fresh.oauth2_url, CALLBACK))).status).toBe(200);
      expect((await getTool(tool.id)).authorization_status).toBe('completed');
    });

    it.each([
      ['answers 500', 'error500' as const, 'answered HTTP 500'],
      ['answers something that is not a token', 'garbage' as const, 'not a token response'],
      ['does not answer', 'hang' as const, 'did not answer within 1500 ms'],
    ])('fails the tool when the token endpoint %s', async (_name, fault, reason) => {
      const tool = await createTool();
      const url = await followToCallback(tool.oauth2_url, CALLBACK);
      await oidc.control({ token: fault });
      const res = await callback(url);
      expect(res.status).toBe(502);
      expect(res.text).toContain(reason);
      expect(await getTool(tool.id)).toMatchObject({ authorization_status: 'failed' });
      expect((await authorization('Google.SendEmail')).status_reason).toContain(reason);
    });

    it('fails the tool when the user grants fewer scopes than it needs', async () => {
      await oidc.control({ withhold: GMAIL_SEND });
      const { tool, response } = await authorizeNew();
      expect(response.status).toBe(400);
      expect(response.text).toContain(`did not grant ${GMAIL_SEND}`);
      expect(await getTool(tool.id)).toMatchObject({ authorization_status: 'failed' });
      expect(await authorization('Google.SendEmail')).toMatchObject({
        status: 'failed',
        token_status: 'active',
        status_reason: expect.stringContaining(GMAIL_SEND),
      });
    });

    it('fails the tool when the provider refuses the code', async () => {
      const tool = await createTool();
      const url = await followToCallback(tool.oauth2_url, CALLBACK);
      url.searchParams.set('code', 'not-a-code-the-provider-issued');
      const res = await callback(url);
      expect(res.status).toBe(502);
      expect(res.text).toContain('invalid_grant');
      expect((await getTool(tool.id)).authorization_status).toBe('failed');
    });
  });

  describe('access tokens', () => {
    it('refreshes a token about to expire, once for concurrent callers', async () => {
      await authorizeNew();
      const first = await grants().accessToken(org, 'agent-1', 'google');
      expect(await grants().accessToken(org, 'agent-1', 'google')).toBe(first);

      clock.advance(ACCESS_TOKEN_TTL * 1000 + MINUTE);
      expect(await authorization('Google.SendEmail')).toMatchObject({
        status: 'completed',
        token_status: 'expired',
        met: true,
      });
      const [a, b] = await Promise.all([
        grants().accessToken(org, 'agent-1', 'google'),
        grants().accessToken(org, 'agent-1', 'google'),
      ]);
      expect(a).toEqual(expect.any(String));
      expect(a).not.toBe(first);
      expect(b).toBe(a);
      expect((await oidc.userinfo(a!)).status).toBe(200);
      expect((await authorization('Google.SendEmail')).token_status).toBe('active');

      // Within 60 s of expiry counts as expired: refreshed before it is handed out.
      clock.advance(ACCESS_TOKEN_TTL * 1000 - 30_000);
      const third = await grants().accessToken(org, 'agent-1', 'google');
      expect(third).not.toBe(a);
      expect(t.logs()).not.toContain(a!);
    });

    it('fails the grant and its tools when the provider refuses the refresh', async () => {
      const { tool } = await authorizeNew();
      await oidc.control({ revokeRefreshTokens: true });
      clock.advance(ACCESS_TOKEN_TTL * 1000 + MINUTE);
      expect(await grants().accessToken(org, 'agent-1', 'google')).toBeNull();
      expect((await getTool(tool.id)).authorization_status).toBe('failed');
      expect(await authorization('Google.SendEmail')).toMatchObject({
        status: 'failed',
        token_status: 'failed',
        status_reason: expect.stringContaining('invalid_grant'),
        met: false,
      });
      const [grant] = await t.app
        .get(DataSource)
        .query(
          'SELECT status, access_token_encrypted, refresh_token_encrypted FROM oauth2_grants WHERE organization_id = $1',
          [org],
        );
      expect(grant).toEqual({
        status: 'failed',
        access_token_encrypted: null,
        refresh_token_encrypted: null,
      });
      // A new tool on the provider needs a new authorization.
      expect((await createTool()).authorization_status).toBe('pending');
    });

    it('answers null without a grant, or for another organization', async () => {
      await authorizeNew();
      expect(await grants().accessToken(org, 'agent-2', 'google')).toBeNull();
      expect(await grants().accessToken(newOrganization(), 'agent-1', 'google')).toBeNull();
      expect(await grants().accessToken(org, 'agent-1', 'github')).toBeNull();
    });
  });

  describe('providers that are not configured', () => {
    it('leaves the tool not_started and says which variables to set', async () => {
      const tool = await createTool({ name: 'Github.CreateIssue' });
      expect(tool).toMatchObject({ authorization_status: 'not_started', oauth2_url: '' });
      const reason =
        "OAuth2 provider 'github' is not configured: set OAUTH_GITHUB_CLIENT_ID and OAUTH_GITHUB_CLIENT_SECRET";
      expect(await authorization('Github.CreateIssue')).toMatchObject({
        status: 'not_started',
        status_reason: reason,
        met: false,
      });
      const res = await t.http().post(`/v1/tools/${tool.id}/authorize`).set(auth).expect(422);
      expect(res.body).toMatchObject({ code: 'provider_not_configured', detail: `${reason}.` });
    });

    it('answers 409 to authorize a tool that needs no OAuth2', async () => {
      const tool = await createTool({ name: 'Math.Calculate' });
      const res = await t.http().post(`/v1/tools/${tool.id}/authorize`).set(auth).expect(409);
      expect(res.body.code).toBe('oauth2_not_required');
    });
  });

  describe('GET, list and DELETE /v1/tools', () => {
    it('gets, lists newest first and deletes, within the organization only', async () => {
      const a = await createTool({ name: 'Math.Calculate' });
      const b = await createTool({ agent_id: 'agent-2' });
      const c = await createTool({ name: 'Math.Calculate' });
      const list = (await t.http().get('/v1/tools').set(auth).expect(200)).body.data;
      expect(list).toEqual({ items: expect.any(Array), offset: 0, total_count: 3 });
      expect(list.items.map((tool: Tool) => tool.id)).toEqual([c.id, b.id, a.id]);
      expect(list.items[0]).toEqual(c);
      const agentPage = (
        await t.http().get('/v1/tools?agent_id=agent-1&offset=1&limit=1').set(auth).expect(200)
      ).body.data;
      expect(agentPage).toEqual({ items: [a], offset: 1, total_count: 2 });
      await t.http().get('/v1/tools?limit=0').set(auth).expect(400);

      const stranger = bearer(tokenFor());
      await t.http().get(`/v1/tools/${a.id}`).set(stranger).expect(404);
      await t.http().post(`/v1/tools/${b.id}/authorize`).set(stranger).expect(404);
      await t.http().delete(`/v1/tools/${a.id}`).set(stranger).expect(404);
      expect(
        (await t.http().get('/v1/tools').set(stranger).expect(200)).body.data.total_count,
      ).toBe(0);
      await t.http().get('/v1/tools/not-a-uuid').set(auth).expect(404);

      await t.http().delete(`/v1/tools/${b.id}`).set(auth).expect(204);
      await t.http().get(`/v1/tools/${b.id}`).set(auth).expect(404);
      await t.http().delete(`/v1/tools/${b.id}`).set(auth).expect(404);
      // Its authorization in flight went with it.
      const res = await callback(await followToCallback(b.oauth2_url, CALLBACK));
      expect(res.status).toBe(400);
    });
  });
});

describe('OAuth2 callback redirects (e2e)', () => {
  let oidc: OidcProvider;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    oidc = await startGoogleStandIn();
    t = await startApp({
      ...googleEnv(oidc),
      OAUTH_SUCCESS_URL: 'https://app.example.com/connected?from=agentline',
      OAUTH_FAILURE_URL: 'https://app.example.com/failed',
    });
  });
  beforeEach(() => {
    auth = bearer(tokenFor({ org: newOrganization() }));
  });
  afterAll(async () => {
    await t?.close();
    await oidc?.close();
  });

  const start = async () => {
    const tool = (
      await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send(aTool({ name: 'Google.SendEmail' }))
        .expect(201)
    ).body.data as Tool;
    const url = await followToCallback(tool.oauth2_url, CALLBACK);
    return { tool, res: await t.http().get(`${url.pathname}${url.search}`) };
  };

  it('sends the browser to OAUTH_SUCCESS_URL with tool_id and status', async () => {
    const { tool, res } = await start();
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location);
    expect(`${location.origin}${location.pathname}`).toBe('https://app.example.com/connected');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      from: 'agentline',
      tool_id: tool.id,
      status: 'completed',
    });
  });

  it('sends the browser to OAUTH_FAILURE_URL on failure', async () => {
    await oidc.control({ consent: 'deny' });
    const { tool, res } = await start();
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      tool_id: tool.id,
      status: 'failed',
      error: 'authorization_refused',
    });
    const invalid = await t.http().get('/v1/oauth2/callback?state=nope&code=x');
    expect(invalid.status).toBe(302);
    expect(invalid.headers.location).toBe(
      'https://app.example.com/failed?status=failed&error=invalid_state',
    );
  });
});
