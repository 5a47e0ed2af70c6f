import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OneOwnerPerMetaId1764500000500 } from '../migrations/1764500000500-one-owner-per-meta-id';
import { aMessangerChannel, aWhatsappChannel } from './support/factories';
import {
  ChannelKind,
  givenFollowUp,
  givenMessangerChannel,
  givenWhatsappChannel,
} from './support/given';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

describe('Channels (e2e)', () => {
  let t: TestApp;
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    org = newOrganization();
    auth = bearer(tokenFor({ org, sub: 'alice' }));
  });

  /** The requests under test; `as` is the caller (this test's organization unless said). */
  const post = (kind: ChannelKind, as = auth) => t.http().post(`/v1/channels/${kind}`).set(as);
  const put = (kind: ChannelKind, id: string, as = auth) =>
    t.http().put(`/v1/channels/${kind}/${id}`).set(as);

  describe('POST /v1/channels/whatsapp', () => {
    it('creates a channel, wrapped in data, without the access token', async () => {
      const body = aWhatsappChannel({ number_id: '106540352242922' });
      const before = Date.now();
      const res = await post('whatsapp').send(body).expect(201);
      const channel = res.body.data;
      expect(Object.keys(res.body)).toEqual(['data']);
      expect(channel).toEqual({
        id: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        ),
        agent_id: 'agent-1',
        number_id: '106540352242922',
        status: 'active',
        status_reason: null,
        type: 'Whatsapp',
        business_account_id: null,
        templates: { synced_at: null, sync_error: null },
        organization_id: org,
        created_by: 'alice',
        verification_token: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
        webhook_url: `http://localhost:3000/v1/webhooks/whatsapp/${channel.id}`,
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
      expect(channel.created_at).toBeGreaterThanOrEqual(before - 1000);
      expect(channel.created_at).toBeLessThanOrEqual(Date.now() + 1000);
      expect(channel.updated_at).toBe(channel.created_at);
      expect(JSON.stringify(res.body)).not.toContain(body.access_token);
    });

    it('generates a different verification token for every channel', async () => {
      const a = await givenWhatsappChannel(t, auth);
      const b = await givenWhatsappChannel(t, auth);
      expect(a.verification_token).not.toBe(b.verification_token);
    });

    it('answers 409 for a second channel with the same number_id in the organization', async () => {
      const { number_id } = await givenWhatsappChannel(t, auth);
      const res = await post('whatsapp')
        .send(aWhatsappChannel({ number_id, agent_id: 'agent-2' }))
        .expect(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 409, code: 'conflict' });
    });

    it("answers 409 for another organization's number_id, naming nobody, and frees it on DELETE", async () => {
      const mine = await givenWhatsappChannel(t, auth);
      const otherOrg = newOrganization();
      const other = bearer(tokenFor({ org: otherOrg }));
      const res = await post('whatsapp', other)
        .send(aWhatsappChannel({ number_id: mine.number_id }))
        .expect(409);
      expect(res.body).toEqual({
        type: expect.any(String),
        title: 'Conflict',
        status: 409,
        code: 'conflict',
        detail: `number_id ${mine.number_id} is already bound to a channel; it can be bound again once that channel is removed.`,
        request_id: expect.any(String),
      });
      // The same words as a conflict within one organization: nothing about whose it is.
      const own = await post('whatsapp')
        .send(aWhatsappChannel({ number_id: mine.number_id }))
        .expect(409);
      expect(own.body.detail).toBe(res.body.detail);
      expect(JSON.stringify(res.body)).not.toContain(org);
      expect(JSON.stringify(res.body)).not.toContain(mine.id);

      await t.http().delete(`/v1/channels/whatsapp/${mine.id}`).set(auth).expect(204);
      const taken = await post('whatsapp', other)
        .send(aWhatsappChannel({ number_id: mine.number_id }))
        .expect(201);
      expect(taken.body.data).toMatchObject({
        number_id: mine.number_id,
        organization_id: otherOrg,
      });
    });

    it('holds a number_id for an inactive channel too', async () => {
      const mine = await givenWhatsappChannel(t, auth);
      await t.app
        .get(DataSource)
        .query(`UPDATE whatsapp_channels SET status = 'inactive' WHERE id = $1`, [mine.id]);
      await post('whatsapp', bearer(tokenFor()))
        .send(aWhatsappChannel({ number_id: mine.number_id }))
        .expect(409);
    });

    it('lets exactly one of concurrent creates in several organizations bind a number_id', async () => {
      const numberId = aWhatsappChannel().number_id;
      const organizations = Array.from({ length: 6 }, () => newOrganization());
      const answers = await Promise.all(
        organizations.map((organization) =>
          t
            .http()
            .post('/v1/channels/whatsapp')
            .set(bearer(tokenFor({ org: organization })))
            .send(aWhatsappChannel({ number_id: numberId })),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      const winner = answers.find((res) => res.status === 201)?.body.data;
      const rows: { organization_id: string }[] = await t.app
        .get(DataSource)
        .query(
          'SELECT organization_id FROM whatsapp_channels WHERE number_id = $1 AND deleted_at IS NULL',
          [numberId],
        );
      expect(rows).toEqual([{ organization_id: winner.organization_id }]);
    });

    it.each([
      ['a missing access_token', { access_token: undefined }, 'access_token'],
      ['a missing agent_id', { agent_id: undefined }, 'agent_id'],
      ['a missing number_id', { number_id: undefined }, 'number_id'],
      ['a number access_token', { access_token: 42 }, 'access_token'],
      ['an empty number_id', { number_id: '' }, 'number_id'],
      // It goes into the Graph URL (/v23.0/{number_id}/messages): a path would move the call.
      ['a number_id of ..', { number_id: '..' }, 'number_id'],
      ['a number_id that is a path', { number_id: '10654/../me' }, 'number_id'],
      ['an unknown field', { status: 'inactive' }, 'status'],
      ['a type field', { type: 'Messanger' }, 'type'],
    ])('answers 400 for %s', async (_name, override, field) => {
      const res = await post('whatsapp').send(aWhatsappChannel(override)).expect(400);
      expect(res.body).toMatchObject({
        status: 400,
        code: 'validation_failed',
        title: 'Bad Request',
      });
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });
  });

  describe('PUT /v1/channels/whatsapp/:id', () => {
    it('refuses a number_id that is a path segment of its own, naming it, and keeps the channel', async () => {
      const created = await givenWhatsappChannel(t, auth);
      const res = await put('whatsapp', created.id).send({ number_id: '..' }).expect(400);
      expect(res.body.errors).toEqual([
        {
          field: 'number_id',
          message: 'number_id must be a Meta id: letters, digits, _ and - only',
        },
      ]);
      const after = await put('whatsapp', created.id)
        .send({ access_token: 'EAAG-other' })
        .expect(200);
      expect(after.body.data.number_id).toBe(created.number_id);
    });

    it('changes the number and token, keeps the rest, and moves updated_at', async () => {
      const created = await givenWhatsappChannel(t, auth);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const res = await put('whatsapp', created.id)
        .send({ number_id: '999000111', access_token: 'EAAG-new-token' })
        .expect(200);
      expect(res.body.data).toMatchObject({
        id: created.id,
        number_id: '999000111',
        agent_id: created.agent_id,
        verification_token: created.verification_token,
        created_at: created.created_at,
        status: 'active',
      });
      expect(res.body.data.updated_at).toBeGreaterThan(created.updated_at);
      expect(JSON.stringify(res.body)).not.toContain('EAAG-new-token');
    });

    it('accepts only one of the fields', async () => {
      const created = await givenWhatsappChannel(t, auth);
      const res = await put('whatsapp', created.id)
        .send({ access_token: 'EAAG-rotated' })
        .expect(200);
      expect(res.body.data.number_id).toBe(created.number_id);
    });

    it('refuses agent_id in the body (400, unknown field)', async () => {
      const created = await givenWhatsappChannel(t, auth);
      const res = await put('whatsapp', created.id)
        .send({ agent_id: 'agent-2', number_id: '123' })
        .expect(400);
      expect(res.body.errors).toContainEqual({
        field: 'agent_id',
        message: 'unknown field agent_id',
      });
    });

    it('refuses an empty body', async () => {
      const created = await givenWhatsappChannel(t, auth);
      await put('whatsapp', created.id).send({}).expect(400);
    });

    it('answers 409 when the new number_id is taken', async () => {
      const a = await givenWhatsappChannel(t, auth);
      const b = await givenWhatsappChannel(t, auth);
      await put('whatsapp', b.id).send({ number_id: a.number_id }).expect(409);
    });

    it("answers 409 when the new number_id is another organization's, and leaves the channel", async () => {
      const theirs = await givenWhatsappChannel(t, bearer(tokenFor()));
      const mine = await givenWhatsappChannel(t, auth);
      const res = await put('whatsapp', mine.id)
        .send({ number_id: theirs.number_id, access_token: 'EAAG-moving' })
        .expect(409);
      expect(res.body.detail).not.toContain(theirs.organization_id);
      const after = await t.http().get(`/v1/channels/whatsapp/${mine.id}`).set(auth).expect(200);
      expect(after.body.data.number_id).toBe(mine.number_id);
    });

    it.each([
      ['an unknown id', () => randomUUID()],
      ['a malformed id', () => 'not-a-uuid'],
    ])('answers 404 for %s', async (_name, id) => {
      const res = await put('whatsapp', id()).send({ number_id: '1' }).expect(404);
      expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    });

    it("answers 404 for another organization's channel and leaves it unchanged", async () => {
      const created = await givenWhatsappChannel(t, auth);
      const intruder = bearer(tokenFor({ org: newOrganization() }));
      await put('whatsapp', created.id, intruder).send({ number_id: '1' }).expect(404);
      const again = await put('whatsapp', created.id).send({ access_token: 'x' });
      expect(again.body.data.number_id).toBe(created.number_id);
    });

    it('does not find a Messanger channel through the WhatsApp path', async () => {
      const messanger = await givenMessangerChannel(t, auth);
      await put('whatsapp', messanger.id).send({ number_id: '1' }).expect(404);
    });
  });

  describe('Messanger channels', () => {
    it.each(['..', '1029384756/../me', '10%2F..'])(
      'refuses the user_id %p, naming it',
      async (userId) => {
        const res = await post('messanger')
          .send(aMessangerChannel({ user_id: userId }))
          .expect(400);
        expect(res.body.errors).toEqual([
          { field: 'user_id', message: 'user_id must be a Meta id: letters, digits, _ and - only' },
        ]);
      },
    );

    it('creates a channel with type Messanger, no status, and a null status_reason', async () => {
      const body = aMessangerChannel({ user_id: '1029384756' });
      const res = await post('messanger').send(body).expect(201);
      expect(res.body.data).toEqual({
        id: expect.any(String),
        agent_id: 'agent-1',
        user_id: '1029384756',
        type: 'Messanger',
        status_reason: null,
        organization_id: org,
        created_by: 'alice',
        verification_token: expect.stringMatching(/^[A-Za-z0-9_-]{32,}$/),
        webhook_url: `http://localhost:3000/v1/webhooks/messanger/${res.body.data.id}`,
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
      expect(JSON.stringify(res.body)).not.toContain(body.access_token);
    });

    it('updates with both required fields', async () => {
      const created = await givenMessangerChannel(t, auth);
      const res = await put('messanger', created.id)
        .send({ user_id: '555', access_token: 'EAAG-fb-new' })
        .expect(200);
      expect(res.body.data).toMatchObject({ id: created.id, user_id: '555', type: 'Messanger' });
    });

    it.each([
      ['without access_token', { user_id: '555' }, 'access_token'],
      ['without user_id', { access_token: 'x' }, 'user_id'],
      ['with agent_id', { user_id: '555', access_token: 'x', agent_id: 'agent-2' }, 'agent_id'],
      ['with a user_id of ..', { user_id: '..', access_token: 'x' }, 'user_id'],
    ])('refuses an update %s', async (_name, body, field) => {
      const created = await givenMessangerChannel(t, auth);
      const res = await put('messanger', created.id).send(body).expect(400);
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });

    it('answers 409 for a page another organization bound, on create and PUT, until it is removed', async () => {
      const theirs = bearer(tokenFor({ org: newOrganization() }));
      const page = await givenMessangerChannel(t, theirs);
      const refused = await post('messanger')
        .send(aMessangerChannel({ user_id: page.user_id }))
        .expect(409);
      expect(refused.body).toMatchObject({
        code: 'conflict',
        detail: `user_id ${page.user_id} is already bound to a channel; it can be bound again once that channel is removed.`,
      });
      const mine = await givenMessangerChannel(t, auth);
      await put('messanger', mine.id)
        .send({ user_id: page.user_id, access_token: 'EAAG-fb-moving' })
        .expect(409);
      // A second channel of the same page in one organization is refused too.
      await post('messanger', theirs)
        .send(aMessangerChannel({ user_id: page.user_id }))
        .expect(409);

      await t.http().delete(`/v1/channels/messanger/${page.id}`).set(theirs).expect(204);
      const moved = await put('messanger', mine.id)
        .send({ user_id: page.user_id, access_token: 'EAAG-fb-moving' })
        .expect(200);
      expect(moved.body.data.user_id).toBe(page.user_id);
    });

    it('lets exactly one of concurrent creates in two organizations bind a page', async () => {
      const userId = aMessangerChannel().user_id;
      const answers = await Promise.all(
        [newOrganization(), newOrganization()].map((organization) =>
          t
            .http()
            .post('/v1/channels/messanger')
            .set(bearer(tokenFor({ org: organization })))
            .send(aMessangerChannel({ user_id: userId })),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([201, 409]);
    });

    it("answers 404 for another organization's channel", async () => {
      const created = await givenMessangerChannel(t, auth);
      await put('messanger', created.id, bearer(tokenFor()))
        .send({ user_id: '1', access_token: 'x' })
        .expect(404);
    });
  });

  describe('migration 1764500000500 (ids bound by several organizations before it)', () => {
    it('keeps the oldest active channel of each id, removes the others as DELETE does, and loses no row', async () => {
      const app = await startApp();
      try {
        const db = app.app.get(DataSource);
        const orgs = ['a', 'b', 'c', 'd'].map(() => newOrganization());
        const as = (index: number) => bearer(tokenFor({ org: orgs[index] }));
        // One after the other: the oldest is the one kept.
        const wa = [
          await givenWhatsappChannel(app, as(0)),
          await givenWhatsappChannel(app, as(1)),
          await givenWhatsappChannel(app, as(2)),
        ];
        const fb = [
          await givenMessangerChannel(app, as(0)),
          await givenMessangerChannel(app, as(1)),
        ];
        const followUp = await givenFollowUp(app, as(2), wa[2].id);

        // Back to the schema before it, where several organizations could bind one id (on the
        // runner's connection: PGlite has one).
        const migration = new OneOwnerPerMetaId1764500000500();
        const runner = db.createQueryRunner();
        try {
          await migration.down(runner);
          const numberId = wa[0].number_id;
          // a: oldest but inactive; b: the oldest active (kept); c: newer, with a follow-up.
          for (const [index, status, createdAt] of [
            [0, 'inactive', '2025-01-01T00:00:00Z'],
            [1, 'active', '2025-02-01T00:00:00Z'],
            [2, 'active', '2025-03-01T00:00:00Z'],
          ] as const) {
            await runner.query(
              'UPDATE whatsapp_channels SET number_id = $2, status = $3, created_at = $4 WHERE id = $1',
              [wa[index].id, numberId, status, createdAt],
            );
          }
          await runner.query('UPDATE messanger_channels SET user_id = $2 WHERE id = $1', [
            fb[1].id,
            fb[0].user_id,
          ]);
          await migration.up(runner);
        } finally {
          await runner.release();
        }

        const live = async (kind: string, index: number, id: string) =>
          (await app.http().get(`/v1/channels/${kind}/${id}`).set(as(index))).status;
        expect(await live('whatsapp', 1, wa[1].id)).toBe(200);
        expect(await live('whatsapp', 0, wa[0].id)).toBe(404);
        expect(await live('whatsapp', 2, wa[2].id)).toBe(404);
        expect(await live('messanger', 0, fb[0].id)).toBe(200);
        expect(await live('messanger', 1, fb[1].id)).toBe(404);
        const rows: { id: string; status: string; status_reason_code: string | null }[] =
          await db.query(
            `SELECT id, status, status_reason_code FROM whatsapp_channels
              WHERE number_id = $1 AND deleted_at IS NOT NULL ORDER BY created_at`,
            [wa[0].number_id],
          );
        expect(rows).toEqual([
          { id: wa[0].id, status: 'inactive', status_reason_code: 'meta_id_in_use' },
          { id: wa[2].id, status: 'inactive', status_reason_code: 'meta_id_in_use' },
        ]);
        const stopped = await app
          .http()
          .get(`/v1/scheduler/follow-up/whatsapp/${followUp.id}`)
          .set(as(2))
          .expect(200);
        expect(stopped.body).toMatchObject({ status: 'completed', next_run_at: null });

        // From now on the index holds the id for the kept channel.
        await app
          .http()
          .post('/v1/channels/whatsapp')
          .set(as(3))
          .send(aWhatsappChannel({ number_id: wa[0].number_id }))
          .expect(409);
        await app
          .http()
          .post('/v1/channels/messanger')
          .set(as(3))
          .send(aMessangerChannel({ user_id: fb[0].user_id }))
          .expect(409);
      } finally {
        await app.close();
      }
    });
  });

  it('never writes an access token to the log', async () => {
    const whatsapp = aWhatsappChannel();
    const messanger = aMessangerChannel();
    await post('whatsapp').send(whatsapp).expect(201);
    await post('messanger').send(messanger).expect(201);
    await post('whatsapp')
      .send({ ...whatsapp, extra: true })
      .expect(400);
    const logs = t.logs();
    expect(logs).toContain('/v1/channels/whatsapp');
    expect(logs).not.toContain(whatsapp.access_token);
    expect(logs).not.toContain(messanger.access_token);
    expect(logs).not.toContain(auth.Authorization.slice(7));
  });

  it('never returns or logs an app_secret, and stores it encrypted', async () => {
    const [waSecret, fbSecret] = [`wa-app-secret-${randomUUID()}`, `fb-app-secret-${randomUUID()}`];
    const whatsapp = aWhatsappChannel({ app_secret: waSecret });
    const messanger = aMessangerChannel({ app_secret: fbSecret });
    const answers = [];
    const wa = await post('whatsapp').send(whatsapp).expect(201);
    const fb = await post('messanger').send(messanger).expect(201);
    answers.push(wa, fb);
    const rotated = `wa-app-secret-${randomUUID()}`;
    answers.push(
      await put('whatsapp', wa.body.data.id).send({ app_secret: rotated }).expect(200),
      await put('messanger', fb.body.data.id)
        .send({ user_id: messanger.user_id, access_token: 'EAAG-fb-x', app_secret: rotated })
        .expect(200),
      await t.http().get(`/v1/channels/whatsapp/${wa.body.data.id}`).set(auth).expect(200),
      await t.http().get(`/v1/channels/messanger/${fb.body.data.id}`).set(auth).expect(200),
      await t.http().get('/v1/channels/whatsapp').set(auth).expect(200),
      await t.http().get('/v1/channels/messanger').set(auth).expect(200),
      // A refused body is logged by no one either.
      await post('whatsapp')
        .send({ ...whatsapp, extra: true })
        .expect(400),
    );
    for (const res of answers) {
      expect(res.text).not.toContain(waSecret);
      expect(res.text).not.toContain(fbSecret);
      expect(res.text).not.toContain(rotated);
      expect(res.text).not.toContain('app_secret');
    }
    const logs = t.logs();
    expect(logs).toContain('/v1/channels/whatsapp');
    for (const secret of [waSecret, fbSecret, rotated]) {
      expect(logs).not.toContain(secret);
    }
    const [row] = await t.app
      .get(DataSource)
      .query('SELECT app_secret_encrypted FROM whatsapp_channels WHERE id = $1', [wa.body.data.id]);
    expect(row.app_secret_encrypted).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(row.app_secret_encrypted).not.toContain(rotated);
  });

  it.each([
    ['shorter than 8 characters', 'short'],
    ['null', null],
    ['with whitespace', 'has a space in it'],
    ['a number', 12345678],
  ])('refuses an app_secret %s (400, naming it)', async (_name, appSecret) => {
    const res = await post('whatsapp')
      .send(aWhatsappChannel({ app_secret: appSecret }))
      .expect(400);
    const fields = res.body.errors.map((error: { field: string }) => error.field);
    expect([...new Set(fields)]).toEqual(['app_secret']);
  });

  it('stores access tokens encrypted', async () => {
    const body = aWhatsappChannel();
    const created = await givenWhatsappChannel(t, auth, body);
    const rows = await t.app
      .get(DataSource)
      .query('SELECT access_token_encrypted FROM whatsapp_channels WHERE id = $1', [created.id]);
    expect(rows[0].access_token_encrypted).toMatch(/^v1\.[0-9a-f]{8}\./);
    expect(rows[0].access_token_encrypted).not.toContain(body.access_token);
  });
});
