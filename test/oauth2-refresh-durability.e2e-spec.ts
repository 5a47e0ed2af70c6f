import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { OAuth2GrantsService } from '../src/tools/oauth2/oauth2-grants.service';
import { eventually } from './support/eventually';
import { aTool } from './support/factories';
import { ManualClock } from './support/manual-clock';
import { followToCallback, OidcProvider, startOidcProvider } from './support/oidc-provider';
import { TcpProxy } from './support/tcp-proxy';
import {
  bearer,
  createTestDatabase,
  Env,
  newOrganization,
  startApp,
  TestApp,
  tokenFor,
} from './support/test-app';

/**
 * A provider that rotates refresh tokens (oidc-provider with rotation on) consumes the old one when
 * it issues the new one, and revokes the whole grant when the old one comes back. If agentline
 * loses the new tokens to a failed write, the grant is dead: these tests make the write fail right
 * after the token endpoint answered, then prove that the next refresh still works.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

const PUBLIC_URL = 'http://agentline.test';
const CALLBACK = `${PUBLIC_URL}/v1/oauth2/callback`;
const CLIENT_ID = 'agentline-test-client';
const CLIENT_SECRET = 'agentline-test-client-secret-0123456789';
const GMAIL_SEND = 'https://www.googleapis.com/auth/gmail.send';
/** The provider's access token lifetime, in seconds. */
const ACCESS_TOKEN_TTL = 3600;
/** Moves agentline's clock past the access token's expiry: the next use refreshes it. */
const PAST_EXPIRY_MS = (ACCESS_TOKEN_TTL + 60) * 1000;

/**
 * The provider's token endpoint seen through a relay, so that a test can act at the moment the
 * provider has issued tokens and before agentline has them (`onRefreshIssued`).
 */
class TokenRelay {
  onRefreshIssued?: () => void;

  private constructor(
    private readonly server: Server,
    private readonly target: string,
  ) {}

  static async start(target: string): Promise<TokenRelay> {
    const server = createServer();
    const relay = new TokenRelay(server, target);
    server.on('request', (req, res) => {
      void relay.forward(req).then(({ status, contentType, body, refreshIssued }) => {
        if (refreshIssued) relay.onRefreshIssued?.();
        res.writeHead(status, { 'content-type': contentType }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/token`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async forward(req: IncomingMessage) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = Buffer.concat(chunks).toString('utf8');
    const answer = await fetch(this.target, {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body: form,
    });
    const body = await answer.text();
    return {
      status: answer.status,
      contentType: answer.headers.get('content-type') ?? 'application/json',
      body,
      refreshIssued:
        new URLSearchParams(form).get('grant_type') === 'refresh_token' && answer.status === 200,
    };
  }
}

interface GrantRow {
  status: string;
  refresh_token_encrypted: string | null;
}

/** One app on `env` with the provider behind a relay; an agent authorized on it. */
function oauth2Fixture(env: () => Env) {
  const state = {} as {
    oidc: OidcProvider;
    relay: TokenRelay;
    t: TestApp;
    clock: ManualClock;
    org: string;
  };
  beforeAll(async () => {
    state.oidc = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: CALLBACK,
      scopes: [GMAIL_SEND],
      accessTokenTtl: ACCESS_TOKEN_TTL,
      rotateRefreshTokens: true,
    });
    state.relay = await TokenRelay.start(`${state.oidc.url}/token`);
  });
  afterAll(async () => {
    await state.relay?.close();
    await state.oidc?.close();
  });
  beforeEach(async () => {
    state.clock = new ManualClock();
    state.t = await startApp(
      {
        PUBLIC_URL,
        OAUTH_GOOGLE_CLIENT_ID: CLIENT_ID,
        OAUTH_GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
        OAUTH_GOOGLE_AUTHORIZE_URL: `${state.oidc.url}/auth`,
        OAUTH_GOOGLE_TOKEN_URL: state.relay.url,
        OAUTH_GOOGLE_SCOPES: 'openid offline_access',
        ...env(),
      },
      { clock: state.clock },
    );
    state.org = newOrganization();
    const tool = (
      await state.t
        .http()
        .post('/v1/tools')
        .set(bearer(tokenFor({ org: state.org })))
        .send(aTool({ name: 'Google.SendEmail' }))
        .expect(201)
    ).body.data as { oauth2_url: string };
    const url = await followToCallback(tool.oauth2_url, CALLBACK);
    await state.t.http().get(`${url.pathname}${url.search}`).expect(200);
  });
  afterEach(async () => {
    state.relay.onRefreshIssued = undefined;
    await state.t?.close();
  });

  const accessToken = () =>
    state.t.app.get(OAuth2GrantsService).accessToken(state.org, 'agent-1', 'google');
  const grantRow = async (): Promise<GrantRow> =>
    (
      await state.t.app
        .get(DataSource)
        .query(
          'SELECT status, refresh_token_encrypted FROM oauth2_grants WHERE organization_id = $1',
          [state.org],
        )
    )[0];
  /** The grant still works: a refresh with what is stored now gives a live access token. */
  const expectRefreshStillWorks = async (before: string) => {
    state.clock.advance(PAST_EXPIRY_MS);
    const next = await accessToken();
    expect(next).toEqual(expect.any(String));
    expect(next).not.toBe(before);
    expect((await state.oidc.userinfo(next!)).status).toBe(200);
    expect((await grantRow()).status).toBe('active');
    expect(state.t.logs()).not.toContain('refresh refused');
  };
  return { state, accessToken, grantRow, expectRefreshStillWorks };
}

describe('OAuth2 refresh with a failed write (e2e)', () => {
  const { state, accessToken, grantRow, expectRefreshStillWorks } = oauth2Fixture(() => ({}));

  /**
   * A trigger that fails the next `times` UPDATEs of oauth2_grants. A sequence counts them: its
   * increments survive the rollback that the raised exception causes.
   */
  const failNextGrantUpdates = async (times: number) => {
    const db = state.t.app.get(DataSource);
    await db.query(`CREATE SEQUENCE grant_update_faults`);
    await db.query(
      `CREATE FUNCTION fail_grant_update() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF nextval('grant_update_faults') <= ${times} THEN
           RAISE EXCEPTION 'injected failure of an oauth2_grants update';
         END IF;
         RETURN NEW;
       END $$`,
    );
    await db.query(
      `CREATE TRIGGER fail_grant_update BEFORE UPDATE ON oauth2_grants
       FOR EACH ROW EXECUTE FUNCTION fail_grant_update()`,
    );
  };

  it('keeps the rotated tokens when the first writes fail, and stores them', async () => {
    const first = await accessToken();
    const stored = (await grantRow()).refresh_token_encrypted;
    await failNextGrantUpdates(3);

    state.clock.advance(PAST_EXPIRY_MS);
    const refreshed = await accessToken();
    // The call in flight gets the new access token, which the provider honours.
    expect(refreshed).toEqual(expect.any(String));
    expect(refreshed).not.toBe(first);
    expect((await state.oidc.userinfo(refreshed!)).status).toBe(200);
    // The rotated refresh token reaches the database once the write goes through.
    await eventually(async () =>
      expect((await grantRow()).refresh_token_encrypted).not.toBe(stored),
    );
    // Meanwhile, and after, this process answers the new token without refreshing again.
    expect(await accessToken()).toBe(refreshed);
    await expectRefreshStillWorks(refreshed!);
  });
});

onPostgres('OAuth2 refresh while the database goes away (e2e, PostgreSQL)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: TcpProxy;
  let proxiedUrl: string;
  beforeAll(async () => {
    database = (await createTestDatabase())!;
    ({ proxy, url: proxiedUrl } = await TcpProxy.forDatabaseUrl(database.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await database?.drop();
  });
  const { state, accessToken, grantRow, expectRefreshStillWorks } = oauth2Fixture(() => ({
    DATABASE_URL: proxiedUrl,
    DATABASE_CONNECT_TIMEOUT_MS: '1000',
  }));
  afterEach(() => proxy.restore());

  it('stores the rotated tokens once the database is back, when it went as the provider answered', async () => {
    const first = await accessToken();
    const stored = (await grantRow()).refresh_token_encrypted;
    state.relay.onRefreshIssued = () => proxy.cut();

    state.clock.advance(PAST_EXPIRY_MS);
    const refreshed = await accessToken();
    expect(refreshed).toEqual(expect.any(String));
    expect(refreshed).not.toBe(first);
    expect((await state.oidc.userinfo(refreshed!)).status).toBe(200);
    // While the database is away, this process still answers the token it holds.
    expect(await accessToken()).toBe(refreshed);

    state.relay.onRefreshIssued = undefined;
    proxy.restore();
    await eventually(async () =>
      expect((await grantRow()).refresh_token_encrypted).not.toBe(stored),
    );
    await expectRefreshStillWorks(refreshed!);
  });
});
