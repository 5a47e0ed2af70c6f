import { DataSource } from 'typeorm';
import { WhatsappTemplateSync } from '../src/channels/kinds/whatsapp/templates/whatsapp-template-sync';
import { eventually } from './support/eventually';
import { FakeAgentEndpoint } from './support/fake-agent-endpoint';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import { metaTemplates } from './support/fake-graph-templates';
import { givenFollowUp, givenWhatsappChannel, WhatsappChannel } from './support/given';
import { ManualClock } from './support/manual-clock';
import { postToWebhook } from './support/meta-webhooks';
import {
  bearer,
  createTestDatabase,
  newOrganization,
  startApp,
  TestApp,
  tokenFor,
} from './support/test-app';

const SECRET = 'meta-app-secret-templates';
const EVENTS_SECRET = 'whsec_dGVtcGxhdGUtY2F0YWxvZy1ldmVudHMtc2VjcmV0LTAxMjM=';
type Json = Record<string, unknown>;

interface Channel extends WhatsappChannel {
  business_account_id: string | null;
  templates: {
    synced_at: number | null;
    sync_error: { message: string; failed_at: number } | null;
  };
}

let wabaCounter = 0;
/** A WhatsApp Business Account id of this test's own (digits). */
const aWaba = () => String(900000000000000 + Date.now() * 10 + (wabaCounter++ % 10));

/** A template notification for the account, in Meta's documented shape (entry.id = the WABA id). */
function templateNotification(waba: string, field: string, value: Json): Json {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: waba, time: Math.floor(Date.now() / 1000), changes: [{ value, field }] }],
  };
}

/** Meta's message_template_status_update: the account's spring_sale (en_US) is PAUSED. */
const springSalePaused = (waba: string): Json =>
  templateNotification(waba, 'message_template_status_update', {
    event: 'PAUSED',
    message_template_id: 1014285516911404,
    message_template_name: 'spring_sale',
    message_template_language: 'en_US',
    reason: 'NONE',
    message_template_category: 'MARKETING',
  });

/** Meta's `user_preferences` notification for the channel's number. */
function userPreference(
  numberId: string,
  waId: string,
  value: 'stop' | 'resume',
  at: number,
): Json {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: numberId },
              contacts: [{ profile: { name: 'Ana' }, wa_id: waId }],
              user_preferences: [
                {
                  wa_id: waId,
                  detail: `User requested to ${value} marketing messages`,
                  category: 'marketing_messages',
                  value,
                  timestamp: Math.floor(at / 1000),
                },
              ],
            },
            field: 'user_preferences',
          },
        ],
      },
    ],
  };
}

describe('Template catalog and marketing messages (e2e)', () => {
  let graph: FakeGraphApi;
  let endpoint: FakeAgentEndpoint;
  let clock: ManualClock;
  let t: TestApp;
  let auth: Record<string, string>;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    endpoint = await FakeAgentEndpoint.start();
    clock = new ManualClock(Date.now());
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        GRAPH_API_TIMEOUT_MS: '1500',
        META_APP_SECRET: SECRET,
        AGENT_EVENTS_URL: endpoint.url,
        AGENT_EVENTS_SECRET: EVENTS_SECRET,
        AGENT_EVENTS_TIMEOUT_MS: '1500',
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await endpoint.close();
    await graph.close();
  });
  beforeEach(() => {
    graph.reset();
    auth = bearer(tokenFor({ org: newOrganization() }));
  });

  const getChannel = async (id: string, as = auth): Promise<Channel> =>
    (await t.http().get(`/v1/channels/whatsapp/${id}`).set(as).expect(200)).body.data as Channel;
  const listTemplates = async (id: string, query = '', as = auth) =>
    (await t.http().get(`/v1/channels/whatsapp/${id}/templates${query}`).set(as).expect(200)).body
      .data as { items: Json[]; offset: number; total_count: number };
  /** A channel of the account, its catalog synced once (the create asks for it). */
  async function givenSyncedChannel(waba = aWaba(), overrides: Json = {}): Promise<Channel> {
    if (graph.templates.templatesOf(waba).length === 0) graph.templates.set(waba, metaTemplates());
    const created = (await givenWhatsappChannel(t, auth, {
      business_account_id: waba,
      ...overrides,
    })) as Channel;
    return eventually(async () => {
      const channel = await getChannel(created.id);
      expect(channel.templates.synced_at).not.toBeNull();
      return channel;
    });
  }
  /** Waits until the inbox has applied every notification of the channel. */
  async function notify(channel: { id: string }, payload: Json): Promise<void> {
    await postToWebhook(t, 'whatsapp', channel.id, payload, SECRET).expect(200);
    await eventually(async () => {
      const rows = (await t.app
        .get(DataSource)
        .query(`SELECT 1 FROM webhook_inbox WHERE channel_id = $1 AND status = 'pending'`, [
          channel.id,
        ])) as unknown[];
      expect(rows).toEqual([]);
    });
  }
  const listings = (waba: string) => graph.templates.requests.filter((r) => r.wabaId === waba);
  /** POST .../templates/sync, answered 202. */
  const askSync = (id: string) =>
    t.http().post(`/v1/channels/whatsapp/${id}/templates/sync`).set(auth).expect(202);

  describe('business_account_id on the channel', () => {
    it('is accepted on create, shown with the catalog state, and syncs every page with the channel token', async () => {
      const waba = aWaba();
      graph.templates.set(waba, metaTemplates());
      graph.templates.maxPageSize = 2;
      const body = {
        access_token: 'EAAG-catalog-token-1',
        agent_id: 'agent-1',
        number_id: String(Date.now()),
        business_account_id: waba,
      };
      const res = await t.http().post('/v1/channels/whatsapp').set(auth).send(body).expect(201);
      expect(res.body.data).toMatchObject({
        business_account_id: waba,
        templates: { synced_at: null, sync_error: null },
      });
      const channel = await eventually(async () => {
        const current = await getChannel(res.body.data.id as string);
        expect(current.templates.synced_at).toEqual(expect.any(Number));
        return current;
      });
      expect(channel.templates.sync_error).toBeNull();
      // 6 templates, 2 a page: 3 pages, each after the previous page's cursor.
      const requests = listings(waba);
      expect(requests).toHaveLength(3);
      expect(requests.map((r) => r.after === undefined)).toEqual([true, false, false]);
      for (const request of requests) {
        expect(request.accessToken).toBe('EAAG-catalog-token-1');
        expect(request.fields.sort()).toEqual(
          ['category', 'components', 'id', 'language', 'name', 'parameter_format', 'status'].sort(),
        );
      }
      const page = await listTemplates(channel.id, '?limit=200');
      expect(page.total_count).toBe(6);
      expect(page.items.find((item) => item.name === 'order_shipped')).toEqual({
        name: 'order_shipped',
        language: 'en_US',
        status: 'APPROVED',
        category: 'UTILITY',
        parameter_format: 'NAMED',
        components: metaTemplates()[0].components,
        updated_at: expect.any(Number),
      });
    });

    it('without business_account_id there is no catalog, and a sync on demand is a 409', async () => {
      const channel = (await givenWhatsappChannel(t, auth)) as Channel;
      expect(channel).toMatchObject({
        business_account_id: null,
        templates: { synced_at: null, sync_error: null },
      });
      const res = await t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/templates/sync`)
        .set(auth)
        .expect(409);
      expect(res.body).toMatchObject({ code: 'conflict' });
      expect((await listTemplates(channel.id)).items).toEqual([]);
    });

    it.each([
      ['letters', 'waba-1'],
      ['null on create', null],
      ['a number', 123],
    ])('refuses a business_account_id of %s (400 naming it)', async (_, value) => {
      const res = await t
        .http()
        .post('/v1/channels/whatsapp')
        .set(auth)
        .send({
          access_token: 'EAAG-x',
          agent_id: 'agent-1',
          number_id: '1234567',
          business_account_id: value,
        })
        .expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(JSON.stringify(res.body.errors)).toContain('business_account_id');
    });

    it('a modify with a new token syncs again; another account replaces the catalog; null unbinds it', async () => {
      const channel = await givenSyncedChannel();
      const first = channel.templates.synced_at as number;
      const waba = channel.business_account_id as string;
      graph.templates.set(waba, metaTemplates().slice(0, 2));
      clock.advance(1000);
      await t
        .http()
        .put(`/v1/channels/whatsapp/${channel.id}`)
        .set(auth)
        .send({ access_token: 'EAAG-new-token' })
        .expect(200);
      await eventually(async () => {
        expect((await getChannel(channel.id)).templates.synced_at).toBeGreaterThan(first);
        expect((await listTemplates(channel.id)).total_count).toBe(2);
      });
      expect(listings(waba).at(-1)?.accessToken).toBe('EAAG-new-token');

      const other = aWaba();
      graph.templates.set(other, [{ ...metaTemplates()[4], name: 'other_account_code' }]);
      const moved = await t
        .http()
        .put(`/v1/channels/whatsapp/${channel.id}`)
        .set(auth)
        .send({ business_account_id: other })
        .expect(200);
      expect(moved.body.data).toMatchObject({ business_account_id: other });
      await eventually(async () => {
        const names = (await listTemplates(channel.id)).items.map((item) => item.name);
        expect(names).toEqual(['other_account_code']);
      });

      const unbound = await t
        .http()
        .put(`/v1/channels/whatsapp/${channel.id}`)
        .set(auth)
        .send({ business_account_id: null })
        .expect(200);
      expect(unbound.body.data).toMatchObject({
        business_account_id: null,
        templates: { synced_at: null, sync_error: null },
      });
      expect((await listTemplates(channel.id)).items).toEqual([]);
    });

    it('a modify of the number alone does not sync again', async () => {
      const channel = await givenSyncedChannel();
      const before = graph.templates.requests.length;
      await t
        .http()
        .put(`/v1/channels/whatsapp/${channel.id}`)
        .set(auth)
        .send({ number_id: String(Date.now() + 7) })
        .expect(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(graph.templates.requests.length).toBe(before);
    });
  });

  describe('the listing', () => {
    it('filters by exact name, language and status, and pages like every list', async () => {
      const channel = await givenSyncedChannel();
      const byName = await listTemplates(channel.id, '?name=appointment_reminder');
      expect(byName.items.map((item) => item.language)).toEqual(['en_US', 'es']);
      expect((await listTemplates(channel.id, '?language=es')).items).toEqual([
        expect.objectContaining({ name: 'appointment_reminder', language: 'es' }),
      ]);
      expect((await listTemplates(channel.id, '?status=PAUSED')).items).toEqual([
        expect.objectContaining({ name: 'winter_sale', category: 'MARKETING' }),
      ]);
      const all = (await listTemplates(channel.id)).items.map((i) => `${i.name}/${i.language}`);
      expect(all).toEqual([
        'appointment_reminder/en_US',
        'appointment_reminder/es',
        'login_code/en_US',
        'order_shipped/en_US',
        'spring_sale/en_US',
        'winter_sale/en_US',
      ]);
      const page = await listTemplates(channel.id, '?offset=2&limit=2');
      expect(page).toMatchObject({ offset: 2, total_count: 6 });
      expect(page.items.map((i) => i.name)).toEqual(['login_code', 'order_shipped']);
    });

    it.each([
      ['limit=0', 'limit'],
      ['offset=-1', 'offset'],
      ['status=paused', 'status'],
    ])('refuses %s (400 naming it)', async (query, field) => {
      const channel = await givenSyncedChannel();
      const res = await t
        .http()
        .get(`/v1/channels/whatsapp/${channel.id}/templates?${query}`)
        .set(auth)
        .expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(JSON.stringify(res.body.errors)).toContain(field);
    });

    it("is scoped by organization: another organization's channel is a 404, for listing and syncing", async () => {
      const channel = await givenSyncedChannel();
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      for (const request of [
        t.http().get(`/v1/channels/whatsapp/${channel.id}/templates`).set(stranger),
        t.http().post(`/v1/channels/whatsapp/${channel.id}/templates/sync`).set(stranger),
        t.http().get('/v1/channels/whatsapp/not-a-uuid/templates').set(auth),
      ]) {
        expect((await request.expect(404)).body.code).toBe('not_found');
      }
    });
  });

  describe('an authentication template (login_code, as Meta lists it)', () => {
    const sendLoginCode = (channel: { id: string }, buttons?: Json[]) =>
      t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/messages`)
        .set(auth)
        .send({
          to: '+34612345678',
          template: {
            name: 'login_code',
            language: 'en_US',
            parameters: ['482913'],
            ...(buttons && { buttons }),
          },
        });

    it("sends the code in the body and as the copy-code button's url parameter, in Meta's shape", async () => {
      const channel = await givenSyncedChannel();
      await sendLoginCode(channel, [{ index: 0, sub_type: 'url', parameter: '482913' }]).expect(
        202,
      );
      const [message] = await graph.waitForMessages(1);
      expect(message.payload).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '34612345678',
        type: 'template',
        template: {
          name: 'login_code',
          language: { code: 'en_US' },
          components: [
            { type: 'body', parameters: [{ type: 'text', text: '482913' }] },
            {
              type: 'button',
              sub_type: 'url',
              index: '0',
              parameters: [{ type: 'text', text: '482913' }],
            },
          ],
        },
      });
    });

    it('refuses it without the button parameter: 422 template_invalid naming it, nothing sent', async () => {
      const channel = await givenSyncedChannel();
      const res = await sendLoginCode(channel).expect(422);
      expect(res.body).toMatchObject({ code: 'template_invalid', status: 422 });
      expect(res.body.errors).toEqual([
        {
          field: 'template.buttons',
          message: 'button 0 (URL) needs a parameter: { index: 0, sub_type: "url", parameter }',
        },
      ]);
      expect(graph.messages).toEqual([]);
    });
  });

  describe('syncs', () => {
    it('on demand: 202 with the channel, then the catalog follows Meta (templates gone are removed)', async () => {
      const channel = await givenSyncedChannel();
      const waba = channel.business_account_id as string;
      graph.templates.set(waba, [
        { ...metaTemplates()[1], status: 'PAUSED' },
        {
          id: '7',
          name: 'new_one',
          language: 'fr',
          status: 'PENDING',
          category: 'UTILITY',
          components: [{ type: 'BODY', text: 'Bonjour' }],
        },
      ]);
      const res = await askSync(channel.id);
      expect(res.body.data).toMatchObject({ id: channel.id, business_account_id: waba });
      await eventually(async () => {
        const items = (await listTemplates(channel.id)).items;
        expect(items.map((i) => [i.name, i.language, i.status, i.parameter_format])).toEqual([
          ['appointment_reminder', 'en_US', 'PAUSED', 'POSITIONAL'],
          ['new_one', 'fr', 'PENDING', 'POSITIONAL'],
        ]);
      });
    });

    it('message_template_status_update: the status applies at once, and the catalog is synced again', async () => {
      const channel = await givenSyncedChannel();
      const waba = channel.business_account_id as string;
      const before = listings(waba).length;
      graph.templates.delayMs = 300; // the sync comes after the direct change
      await notify(channel, springSalePaused(waba));
      expect((await listTemplates(channel.id, '?name=spring_sale')).items).toEqual([
        expect.objectContaining({ status: 'PAUSED' }),
      ]);
      await eventually(async () => expect(listings(waba).length).toBeGreaterThan(before));
    });

    /**
     * A template notification and a catalog sync of one channel lock its rows in one order: the
     * channel's row, then its templates. By hand, on PostgreSQL (PGlite serves one connection at a
     * time): the sync's transaction holds the channel row, the notification waits on it without
     * holding a template, so the sync's DELETE of the templates never waits on the notification.
     */
    (process.env.TEST_DATABASE_URL ? it : it.skip)(
      'a template notification waits for a sync holding the channel, without holding its templates (PostgreSQL)',
      async () => {
        const channel = await givenSyncedChannel();
        const waba = channel.business_account_id as string;
        const db = t.app.get(DataSource);
        const sync = db.createQueryRunner();
        await sync.connect();
        try {
          await sync.startTransaction();
          // The sync's first statement (replaceCatalog): the channel's row.
          await sync.query(
            'UPDATE whatsapp_channels SET templates_synced_at = templates_synced_at WHERE id = $1',
            [channel.id],
          );
          await postToWebhook(t, 'whatsapp', channel.id, springSalePaused(waba), SECRET).expect(
            200,
          );
          await eventually(async () =>
            expect(
              await db.query(
                `SELECT pid FROM pg_stat_activity
                  WHERE datname = current_database() AND wait_event_type = 'Lock'`,
              ),
            ).toHaveLength(1),
          );
          // Its next: the templates. Under deadlock_timeout (1 s), a wait would be the deadlock.
          await sync.query(`SET LOCAL lock_timeout = '300ms'`);
          await sync.query('DELETE FROM whatsapp_templates WHERE channel_id = $1', [channel.id]);
          await sync.commitTransaction();
        } finally {
          if (sync.isTransactionActive) await sync.rollbackTransaction();
          await sync.release();
        }
        await eventually(async () =>
          expect(
            await db.query(
              `SELECT attempts, error FROM webhook_inbox WHERE channel_id = $1 AND status = 'processed'`,
              [channel.id],
            ),
          ).toEqual([{ attempts: expect.any(Number), error: null }]),
        );
      },
    );

    it('message_template_quality_update and template_category_update sync again; a completed category change applies at once', async () => {
      const channel = await givenSyncedChannel();
      const waba = channel.business_account_id as string;
      let before = listings(waba).length;
      await notify(
        channel,
        templateNotification(waba, 'message_template_quality_update', {
          previous_quality_score: 'GREEN',
          new_quality_score: 'YELLOW',
          message_template_id: 1014285516911402,
          message_template_name: 'appointment_reminder',
          message_template_language: 'en_US',
        }),
      );
      await eventually(async () => expect(listings(waba).length).toBeGreaterThan(before));
      await eventually(async () =>
        expect((await getChannel(channel.id)).templates.sync_error).toBeNull(),
      );
      before = listings(waba).length;
      graph.templates.delayMs = 300;
      await notify(
        channel,
        templateNotification(waba, 'template_category_update', {
          message_template_id: 1014285516911402,
          message_template_name: 'appointment_reminder',
          message_template_language: 'es',
          previous_category: 'UTILITY',
          new_category: 'MARKETING',
        }),
      );
      expect(
        (await listTemplates(channel.id, '?name=appointment_reminder&language=es')).items,
      ).toEqual([expect.objectContaining({ category: 'MARKETING' })]);
      await eventually(async () => expect(listings(waba).length).toBeGreaterThan(before));
    });

    it('a template notification for an account no channel of the organization has is set aside (unknown_account)', async () => {
      const channel = await givenSyncedChannel();
      const payload = templateNotification('555000111222', 'message_template_status_update', {
        event: 'APPROVED',
        message_template_id: 1,
        message_template_name: 'spring_sale',
        message_template_language: 'en_US',
        reason: 'NONE',
      });
      await notify(channel, payload);
      const [row] = (await t.app
        .get(DataSource)
        .query('SELECT error FROM webhook_inbox WHERE channel_id = $1 ORDER BY received_at DESC', [
          channel.id,
        ])) as { error: string | null }[];
      expect(row.error).toContain('555000111222');
      expect((await listTemplates(channel.id, '?name=spring_sale')).items[0]).toMatchObject({
        status: 'APPROVED',
      });
    });
  });

  describe('a failed sync keeps the catalog and says why', () => {
    it.each([
      ['a Graph 500', graphErrorReply(500, 2, 'Service temporarily unavailable'), 'HTTP 500'],
      ['a Graph 400', graphErrorReply(400, 100, 'Invalid parameter'), 'Invalid parameter'],
      ['garbage', { status: 200, rawBody: '<html>not json</html>' }, 'not JSON'],
      ['a listing without data', { status: 200, body: { paging: {} } }, 'without a data list'],
      ['a time-out', 'hang' as const, 'did not answer within'],
    ])(
      'on %s: recorded on the channel, logged once, told to the agent',
      async (_, reply, words) => {
        const channel = await givenSyncedChannel(aWaba(), {
          access_token: 'EAAG-secret-token-xyz',
        });
        graph.templates.enqueue(reply, reply);
        for (let i = 0; i < 2; i++) {
          clock.advance(1000);
          await askSync(channel.id);
          await eventually(async () => {
            const current = await getChannel(channel.id);
            expect(current.templates.sync_error?.failed_at).toBe(clock.now());
          }, 5000);
        }
        const current = await getChannel(channel.id);
        expect(current.templates.sync_error?.message).toContain(words);
        expect(current.templates.synced_at).toBe(channel.templates.synced_at);
        expect((await listTemplates(channel.id)).total_count).toBe(6);
        const logged = t
          .logs()
          .split('\n')
          .filter((line) => line.includes(channel.id) && line.includes('could not be synced'));
        expect(logged).toHaveLength(1);
        expect(t.logs()).not.toContain('EAAG-secret-token-xyz');
        await eventually(async () => {
          const events = endpoint
            .events('channel.templates_sync_failed')
            .filter((event) => event.body.channel_id === channel.id);
          expect(events).toHaveLength(1);
          expect(events[0].body.data).toMatchObject({
            id: channel.id,
            templates: { sync_error: { message: expect.stringContaining(words) } },
          });
        });
        // The next success clears it.
        await askSync(channel.id);
        await eventually(async () =>
          expect((await getChannel(channel.id)).templates.sync_error).toBeNull(),
        );
      },
    );

    it('a listing of more than 100 pages is a failure: the catalog is never replaced by a part of it', async () => {
      const channel = await givenSyncedChannel();
      const waba = channel.business_account_id as string;
      const many = Array.from({ length: 101 }, (_, n) => ({
        ...metaTemplates()[1],
        id: String(n),
        name: `reminder_${String(n).padStart(3, '0')}`,
      }));
      graph.templates.set(waba, many);
      graph.templates.maxPageSize = 1;
      const before = listings(waba).length;
      await askSync(channel.id);
      await eventually(async () =>
        expect((await getChannel(channel.id)).templates.sync_error?.message).toContain(
          'more than 100 pages',
        ),
      );
      expect(listings(waba).length - before).toBe(100);
      expect((await listTemplates(channel.id)).total_count).toBe(6);
    });

    it('a rejected token fails the sync and deactivates the channel, as a refused send does', async () => {
      const channel = await givenSyncedChannel();
      graph.templates.enqueue(graphErrorReply(401, 190, 'Error validating access token'));
      await askSync(channel.id);
      await eventually(async () => {
        const current = await getChannel(channel.id);
        expect(current.status).toBe('inactive');
        expect(current.templates.sync_error?.message).toContain('190');
      });
      expect((await listTemplates(channel.id)).total_count).toBe(6);
    });
  });

  describe('one replica at a time', () => {
    it('a channel whose sync is leased is not claimed again until the lease runs out', async () => {
      const channel = await givenSyncedChannel();
      const sync = t.app.get(WhatsappTemplateSync);
      const db = t.app.get(DataSource);
      // Asked for, but not yet swept: a claim takes it, the next finds it leased.
      await db.query(
        `UPDATE whatsapp_channels SET templates_sync_requested_at = now() WHERE id = $1`,
        [channel.id],
      );
      const first = await sync.claim(50);
      expect(first.map((row) => row.id)).toContain(channel.id);
      await db.query(
        `UPDATE whatsapp_channels SET templates_sync_requested_at = now() WHERE id = $1`,
        [channel.id],
      );
      expect((await sync.claim(50)).map((row) => row.id)).not.toContain(channel.id);
      clock.advance(30 * 60 * 1000);
      expect((await sync.claim(50)).map((row) => row.id)).toContain(channel.id);
      await db.query(
        `UPDATE whatsapp_channels SET templates_sync_lease_until = NULL WHERE id = $1`,
        [channel.id],
      );
    });

    it("a sync that ran past its lease gives back only its own: another replica's newer lease stays", async () => {
      const channel = await givenSyncedChannel();
      const waba = channel.business_account_id as string;
      const sync = t.app.get(WhatsappTemplateSync);
      const db = t.app.get(DataSource);
      const leaseOf = async () =>
        (
          (await db.query(
            `SELECT templates_sync_lease_until AS lease FROM whatsapp_channels WHERE id = $1`,
            [channel.id],
          )) as { lease: Date | string | null }[]
        )[0].lease;
      const ask = () =>
        db.query(`UPDATE whatsapp_channels SET templates_sync_requested_at = now() WHERE id = $1`, [
          channel.id,
        ]);
      // This replica claims the sync, and Graph's listing takes its time.
      graph.templates.delayMs = 600;
      const before = listings(waba).length;
      await ask();
      const first = sync.sweep();
      await eventually(async () => expect(listings(waba).length).toBe(before + 1));
      // Its lease runs out meanwhile; another replica claims the channel with a lease of its own.
      clock.advance(30 * 60 * 1000);
      await ask();
      expect((await sync.claim(50)).map((row) => row.id)).toContain(channel.id);
      const second = await leaseOf();
      expect(second).not.toBeNull();
      // The first sync ends: the other replica's lease is left as it was.
      await first;
      expect(await leaseOf()).toEqual(second);
      await eventually(async () => expect(graph.templates.inFlight).toBe(0));
      await db.query(
        `UPDATE whatsapp_channels SET templates_sync_lease_until = NULL WHERE id = $1`,
        [channel.id],
      );
    });

    it('syncs asked for at once run one after another, never together', async () => {
      const channel = await givenSyncedChannel();
      graph.templates.delayMs = 150;
      const before = listings(channel.business_account_id as string).length;
      await Promise.all(
        Array.from({ length: 5 }, () =>
          t.http().post(`/v1/channels/whatsapp/${channel.id}/templates/sync`).set(auth).expect(202),
        ),
      );
      await eventually(async () => {
        expect(listings(channel.business_account_id as string).length).toBeGreaterThan(before);
        expect(graph.templates.inFlight).toBe(0);
      });
      expect(graph.templates.maxInFlight).toBe(1);
    });
  });

  describe('marketing messages', () => {
    interface Delivery {
      id: string;
      phone: string;
      status: string;
      last_error: { code: string; message: string } | null;
    }
    const send = (channel: { id: string }, body: Json) =>
      t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/messages`)
        .set(auth)
        .send(body)
        .expect(202);
    const delivery = async (channel: { id: string }, id: string): Promise<Delivery> => {
      const res = await t
        .http()
        .get(`/v1/channels/whatsapp/${channel.id}/deliveries`)
        .set(auth)
        .expect(200);
      return (res.body.data.items as Delivery[]).find((d) => d.id === id) as Delivery;
    };
    const settled = (channel: { id: string }, id: string, status: string) =>
      eventually(async () => {
        const current = await delivery(channel, id);
        expect(current.status).toBe(status);
        return current;
      });
    const spring = {
      name: 'spring_sale',
      language: 'en_US',
      named_parameters: { first_name: 'Ana', offer: '20% off' },
      header: { type: 'image', link: 'https://shop.example.com/spring.jpg' },
      buttons: [{ index: 0, sub_type: 'url', parameter: 'spring' }],
    };
    const reminder = {
      name: 'appointment_reminder',
      language: 'en_US',
      parameters: ['Ana', 'Monday'],
    };
    const optOuts = async (channel: { id: string }) =>
      (await t.http().get(`/v1/channels/whatsapp/${channel.id}/opt-outs`).set(auth).expect(200))
        .body.data.items as Json[];

    it('user_preferences stop skips MARKETING templates only; resume lets them go again', async () => {
      const channel = await givenSyncedChannel();
      await notify(channel, userPreference(channel.number_id, '34612345678', 'stop', clock.now()));
      expect(await optOuts(channel)).toEqual([
        {
          phone: '+34612345678',
          opted_out_at: Math.floor(clock.now() / 1000) * 1000,
          source: 'meta',
          scope: 'marketing',
        },
      ]);
      const marketing = (await send(channel, { to: '+34612345678', template: spring })).body.data;
      const utility = (await send(channel, { to: '+34612345678', template: reminder })).body.data;
      expect(await settled(channel, marketing.id as string, 'skipped')).toMatchObject({
        last_error: { code: 'opted_out_marketing' },
      });
      await settled(channel, utility.id as string, 'sent');
      expect(graph.messages.map((m) => m.template?.name)).toEqual(['appointment_reminder']);
      // Free text and other people are not concerned.
      const other = (await send(channel, { to: '+14155552671', template: spring })).body.data;
      await settled(channel, other.id as string, 'sent');

      clock.advance(60_000);
      await notify(
        channel,
        userPreference(channel.number_id, '34612345678', 'resume', clock.now()),
      );
      expect(await optOuts(channel)).toEqual([]);
      const again = (await send(channel, { to: '+34612345678', template: spring })).body.data;
      await settled(channel, again.id as string, 'sent');
    });

    it('a failed status with 131050 opts the person out of marketing (source meta); a resume older than the stop changes nothing', async () => {
      const channel = await givenSyncedChannel();
      const first = (await send(channel, { to: '+34612345678', template: spring })).body.data;
      const [message] = await graph.waitForMessages(1);
      await settled(channel, first.id as string, 'sent');
      await notify(channel, {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: channel.business_account_id,
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: {
                    display_phone_number: '15550783881',
                    phone_number_id: channel.number_id,
                  },
                  statuses: [
                    {
                      id: message.wamid,
                      status: 'failed',
                      timestamp: String(Math.floor(clock.now() / 1000)),
                      recipient_id: '34612345678',
                      errors: [
                        {
                          code: 131050,
                          title:
                            'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
                          message:
                            'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
                          error_data: {
                            details:
                              'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
                          },
                        },
                      ],
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      expect(await settled(channel, first.id as string, 'failed')).toMatchObject({
        last_error: { code: '131050' },
      });
      expect(await optOuts(channel)).toEqual([
        expect.objectContaining({ phone: '+34612345678', source: 'meta', scope: 'marketing' }),
      ]);
      await notify(
        channel,
        userPreference(channel.number_id, '34612345678', 'resume', clock.now() - 3_600_000),
      );
      expect(await optOuts(channel)).toHaveLength(1);
      const second = (await send(channel, { to: '+34612345678', template: spring })).body.data;
      await settled(channel, second.id as string, 'skipped');
      const utility = (await send(channel, { to: '+34612345678', template: reminder })).body.data;
      await settled(channel, utility.id as string, 'sent');
      // The opt-out API's DELETE lifts only the channel's own opt-outs, not Meta's stop.
      await t
        .http()
        .delete(`/v1/channels/whatsapp/${channel.id}/opt-outs/+34612345678`)
        .set(auth)
        .expect(204);
      expect(await optOuts(channel)).toHaveLength(1);
    });

    it('131049 (per-user marketing limit) fails the delivery with the reason, without retrying it hot', async () => {
      const channel = await givenSyncedChannel();
      graph.enqueue(
        graphErrorReply(
          400,
          131049,
          'This message was not delivered to maintain healthy ecosystem engagement.',
        ),
      );
      const before = graph.requests;
      const sent = (await send(channel, { to: '+34612345678', template: spring })).body.data;
      expect(await settled(channel, sent.id as string, 'failed')).toMatchObject({
        last_error: {
          code: '131049',
          message: expect.stringContaining('healthy ecosystem engagement'),
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.requests - before).toBe(1);
      // As an asynchronous failure too: failed, not sent again.
      const later = (await send(channel, { to: '+34612345678', template: spring })).body.data;
      const [message] = await graph.waitForMessages(1);
      await settled(channel, later.id as string, 'sent');
      await notify(channel, {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: channel.business_account_id,
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: {
                    display_phone_number: '15550783881',
                    phone_number_id: channel.number_id,
                  },
                  statuses: [
                    {
                      id: message.wamid,
                      status: 'failed',
                      timestamp: String(Math.floor(clock.now() / 1000)),
                      recipient_id: '34612345678',
                      errors: [
                        {
                          code: 131049,
                          title:
                            'This message was not delivered to maintain healthy ecosystem engagement.',
                        },
                      ],
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      expect(await settled(channel, later.id as string, 'failed')).toMatchObject({
        last_error: { code: '131049' },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(graph.messages).toHaveLength(1);
      expect(await optOuts(channel)).toEqual([]);
    });

    it("131049 on a follow-up: that occurrence fails, the follow-up's next occurrence tries again", async () => {
      const channel = await givenSyncedChannel();
      const followUp = await givenFollowUp(t, auth, channel.id, {
        frequency: 'daily',
        client_phone_numbers: ['+34612345678'],
        template: spring,
      });
      const occurrences = async () =>
        (
          await t
            .http()
            .get(`/v1/scheduler/follow-up/whatsapp/${followUp.id}/deliveries`)
            .set(auth)
            .expect(200)
        ).body.data.items as Delivery[];
      graph.enqueue(
        graphErrorReply(
          400,
          131049,
          'This message was not delivered to maintain healthy ecosystem engagement.',
        ),
      );
      clock.set(Math.max(clock.now(), followUp.next_run_at));
      await eventually(async () =>
        expect(await occurrences()).toEqual([
          expect.objectContaining({
            status: 'failed',
            last_error: expect.objectContaining({ code: '131049' }),
          }),
        ]),
      );
      const next = (
        await t.http().get(`/v1/scheduler/follow-up/whatsapp/${followUp.id}`).set(auth).expect(200)
      ).body as { next_run_at: number };
      expect(next.next_run_at).toBeGreaterThan(followUp.next_run_at);
      clock.set(next.next_run_at);
      await eventually(async () => {
        const all = await occurrences();
        expect(all.map((d) => d.status).sort()).toEqual(['failed', 'sent']);
      });
      expect(graph.messages.map((m) => m.template?.name)).toEqual(['spring_sale']);
    });
  });
});

describe('Template catalog: the periodic sync (e2e)', () => {
  let graph: FakeGraphApi;
  let t: TestApp;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startApp({ GRAPH_API_URL: graph.url, TEMPLATE_SYNC_MS: '300' });
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  it('syncs every TEMPLATE_SYNC_MS without being asked', async () => {
    const auth = bearer(tokenFor({ org: newOrganization() }));
    const waba = aWaba();
    graph.templates.set(waba, metaTemplates());
    const channel = await givenWhatsappChannel(t, auth, { business_account_id: waba });
    const list = async () =>
      (await t.http().get(`/v1/channels/whatsapp/${channel.id}/templates`).set(auth).expect(200))
        .body.data as { total_count: number };
    await eventually(async () => expect((await list()).total_count).toBe(6));
    graph.templates.set(waba, metaTemplates().slice(0, 1));
    await eventually(async () => expect((await list()).total_count).toBe(1));
  });
});

/**
 * Two replicas on one PostgreSQL, each sweeping every 100 ms and asked for syncs on demand: an
 * account is never listed by both at once. PGlite serves one application, so PostgreSQL only.
 */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('Template catalog on replicas (e2e, PostgreSQL)', () => {
  let graph: FakeGraphApi;
  let database: { url: string; drop: () => Promise<void> };
  let replicas: TestApp[];

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    database = (await createTestDatabase())!;
    const env = { DATABASE_URL: database.url, GRAPH_API_URL: graph.url, TEMPLATE_SYNC_MS: '100' };
    replicas = [await startApp(env), await startApp(env)];
  });
  afterAll(async () => {
    for (const app of replicas) await app.close();
    await database.drop();
    await graph.close();
  });

  it('never syncs one channel on two replicas at once', async () => {
    const auth = bearer(tokenFor({ org: newOrganization() }));
    graph.templates.delayMs = 150;
    const channels = [];
    for (let i = 0; i < 3; i++) {
      const waba = aWaba();
      graph.templates.set(waba, metaTemplates());
      channels.push(
        await givenWhatsappChannel(replicas[i % 2], auth, { business_account_id: waba }),
      );
    }
    // Asked again and again until each account was listed a few times (however slow the machine).
    const wabas = channels.map((channel) => (channel as Channel).business_account_id);
    const listedEnough = () =>
      wabas.every((waba) => graph.templates.requests.filter((r) => r.wabaId === waba).length > 3);
    const deadline = Date.now() + 30_000;
    while (!listedEnough() && Date.now() < deadline) {
      await Promise.all(
        channels.flatMap((channel) =>
          replicas.map((replica) =>
            replica
              .http()
              .post(`/v1/channels/whatsapp/${channel.id}/templates/sync`)
              .set(auth)
              .expect(202),
          ),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // No wait for the fake to go quiet: the replicas sweep every 100 ms, so a listing is almost
    // always in flight; the most ever in flight per account is what counts.
    for (const waba of graph.templates.maxInFlightByAccount.keys()) {
      expect(graph.templates.requests.filter((r) => r.wabaId === waba).length).toBeGreaterThan(3);
      expect(graph.templates.maxInFlightByAccount.get(waba)).toBe(1);
    }
    expect(graph.templates.maxInFlightByAccount.size).toBe(3);
  });
});
