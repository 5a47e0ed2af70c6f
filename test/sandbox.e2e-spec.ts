import { SandboxConversations, SandboxMessageState } from '../src/sandbox';
import { eventually } from './support/eventually';
import { aWhatsappText, metaSignature, whatsappNotification } from './support/meta-webhooks';
import {
  givenMessangerChannel,
  givenWhatsappChannel,
  MessangerChannel,
  WhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

interface Delivery {
  id: string;
  status: string;
  wa_message_id: string | null;
  delivered_at: number | null;
  read_at: number | null;
  last_error: { code: string; message: string } | null;
}

const CLIENT = '+34612345678';
const PSID = '6254837462903845';
const ACCESS_TOKEN = 'EAAG-sandbox-test-token';
const WAMID = /^wamid\.[A-Za-z0-9+/]+=*$/;
const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The built-in Meta sandbox (issue 22): with META_SANDBOX=true the channels talk to the in-process
 * stand-in for Graph over loopback, which answers as Meta does and posts signed notifications to
 * the channels' own webhooks; simulated clients write through the real webhook. No fake Graph API
 * here: the sandbox is the third party, and the app listens so that it can reach itself.
 */
describe('Meta sandbox (e2e)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let auth: Record<string, string>;
  let wa: WhatsappChannel;
  /** Every state each sandbox message reached, in order, as the sandbox's conversations saw them. */
  const states = new Map<string, SandboxMessageState[]>();

  beforeAll(async () => {
    clock = new ManualClock();
    t = await startApp(
      {
        META_SANDBOX: 'true',
        SANDBOX_STATUS_DELAY_MS: '10',
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
      },
      { clock },
    );
    await t.app.listen(0, '127.0.0.1');
    t.app.get(SandboxConversations).subscribe((message) => {
      const seen = states.get(message.id) ?? [];
      if (seen[seen.length - 1] !== message.state) seen.push(message.state);
      states.set(message.id, seen);
    });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    auth = bearer(tokenFor({ org: newOrganization() }));
    wa = await givenWhatsappChannel(t, auth, { access_token: ACCESS_TOKEN });
  });

  const inbound = (kind: string, channelId: string, body: unknown, headers = auth) =>
    t
      .http()
      .post(`/sandbox/${kind}/${channelId}/inbound`)
      .set(headers)
      .send(body as object);
  const send = (kind: string, channelId: string, body: Record<string, unknown>) =>
    t.http().post(`/v1/channels/${kind}/${channelId}/messages`).set(auth).send(body).expect(202);
  const delivery = async (kind: string, channelId: string, id: string): Promise<Delivery> => {
    const res = await t
      .http()
      .get(`/v1/channels/${kind}/${channelId}/deliveries`)
      .set(auth)
      .expect(200);
    const found = (res.body.data.items as Delivery[]).find((item) => item.id === id);
    if (!found) throw new Error(`delivery ${id} is not listed`);
    return found;
  };
  const upload = (channelId: string) =>
    t
      .http()
      .post(`/v1/channels/whatsapp/${channelId}/media`)
      .set(auth)
      .attach('file', ONE_PIXEL_PNG, { filename: 'pixel.png', contentType: 'image/png' })
      .expect(201);
  /** A POST to the stand-in's `/{sender}/messages`, as a channel's transport makes it. */
  const graphSend = (senderId: string, body: Record<string, unknown>, token = ACCESS_TOKEN) =>
    t
      .http()
      .post(`/sandbox/graph/v23.0/${senderId}/messages`)
      .set('authorization', `Bearer ${token}`)
      .send(body);
  /** Waits for the delivery to reach `status` (the sandbox's notifications come on their own). */
  const settled = (kind: string, channelId: string, id: string, status: string) =>
    eventually(async () => {
      const current = await delivery(kind, channelId, id);
      expect(current.status).toBe(status);
      return current;
    });

  it('refuses free text to a client who never wrote: 131047, as Meta', async () => {
    const queued = await send('whatsapp', wa.id, { to: CLIENT, text: 'Hello out of the blue' });
    const failed = await settled('whatsapp', wa.id, queued.body.data.id, 'failed');
    expect(failed.last_error?.code).toBe('131047');
    expect(failed.last_error?.message).toMatch(/Re-engagement message/);
  });

  it('takes a client’s message through the real webhook, then a reply is sent, delivered and read', async () => {
    const written = await inbound('whatsapp', wa.id, {
      from: CLIENT,
      text: 'Is my order on its way?',
    }).expect(202);
    expect(written.body.data).toEqual({
      message_id: expect.stringMatching(WAMID),
      state: 'received',
    });
    // The webhook verified the signature and stored it: the channel lists the client's message.
    const messages = await eventually(async () => {
      const res = await t
        .http()
        .get(`/v1/channels/whatsapp/${wa.id}/messages`)
        .set(auth)
        .expect(200);
      expect(res.body.data.items).toHaveLength(1);
      return res.body.data.items;
    });
    expect(messages[0]).toMatchObject({
      from: CLIENT,
      message_id: written.body.data.message_id,
      type: 'text',
      text: 'Is my order on its way?',
    });

    const queued = await send('whatsapp', wa.id, { to: CLIENT, text: 'Yes, it arrives tomorrow.' });
    const read = await settled('whatsapp', wa.id, queued.body.data.id, 'read');
    expect(read.wa_message_id).toMatch(WAMID);
    // Meta's wamid carries the recipient's number.
    expect(Buffer.from(read.wa_message_id!.slice(6), 'base64').toString('latin1')).toContain(
      '34612345678',
    );
    expect(read.delivered_at).not.toBeNull();
    expect(read.read_at).not.toBeNull();
    expect(states.get(read.wa_message_id!)).toEqual(['accepted', 'sent', 'delivered', 'read']);
  });

  it('signs with the channel’s own app secret when it has one, as Meta would', async () => {
    const own = await givenWhatsappChannel(t, auth, { app_secret: 'the-channels-own-app-secret' });
    const written = await inbound('whatsapp', own.id, { from: CLIENT, text: 'Hi' }).expect(202);
    expect(written.body.data.state).toBe('received');
    const queued = await send('whatsapp', own.id, { to: CLIENT, text: 'Hello!' });
    await settled('whatsapp', own.id, queued.body.data.id, 'read');
  });

  it('closes the window 24 hours after the client’s last message', async () => {
    const client = '+34622222222';
    await inbound('whatsapp', wa.id, { from: client, text: 'Hello' }).expect(202);
    clock.advance(24 * 60 * 60 * 1000 + 60_000);
    const late = await send('whatsapp', wa.id, { to: client, text: 'Sorry for the delay' });
    expect((await settled('whatsapp', wa.id, late.body.data.id, 'failed')).last_error?.code).toBe(
      '131047',
    );
    await inbound('whatsapp', wa.id, { from: client, text: 'Still there?' }).expect(202);
    const reply = await send('whatsapp', wa.id, { to: client, text: 'Yes!' });
    await settled('whatsapp', wa.id, reply.body.data.id, 'read');
  });

  it('answers Graph’s errors in Graph’s own shape', async () => {
    const graph = (path: string, token?: string) => {
      const request = t.http().post(`/sandbox/graph/v23.0/${path}`);
      return token ? request.set('authorization', `Bearer ${token}`) : request;
    };
    const text = {
      messaging_product: 'whatsapp',
      to: '34612345678',
      type: 'text',
      text: { body: 'Hi' },
    };
    const error = (res: { body: { error: Record<string, unknown> } }) => res.body.error;
    expect(error(await graph(`${wa.number_id}/messages`).send(text).expect(401))).toEqual({
      message: 'Invalid OAuth access token - Cannot parse access token',
      type: 'OAuthException',
      code: 190,
      fbtrace_id: expect.stringMatching(/^A[\w-]+$/),
    });
    expect(
      error(await graph(`${wa.number_id}/messages`, 'EAAG-another').send(text).expect(401)),
    ).toMatchObject({ code: 190, error_subcode: 460 });
    expect(
      error(await graph('999000111222333/messages', ACCESS_TOKEN).send(text).expect(400)),
    ).toMatchObject({ code: 100, error_subcode: 33, type: 'GraphMethodException' });
    expect(
      error(
        await graph(`${wa.number_id}/messages`, ACCESS_TOKEN)
          .send({ ...text, text: {} })
          .expect(400),
      ),
    ).toMatchObject({ code: 100, message: '(#100) The parameter text["body"] is required.' });
    expect(
      error(
        await t
          .http()
          .get('/sandbox/graph/v23.0/4242424242')
          .set('authorization', `Bearer ${ACCESS_TOKEN}`)
          .expect(400),
      ),
    ).toMatchObject({ code: 100, error_subcode: 33 });

    // A media's download URL serves its bytes to the channel's token only, and cannot be forged.
    const uploaded = await upload(wa.id);
    const info = await t
      .http()
      .get(`/sandbox/graph/v23.0/${uploaded.body.data.media_id}`)
      .set('authorization', `Bearer ${ACCESS_TOKEN}`)
      .expect(200);
    expect(info.body).toMatchObject({
      messaging_product: 'whatsapp',
      mime_type: 'image/png',
      file_size: ONE_PIXEL_PNG.length,
      id: uploaded.body.data.media_id,
    });
    const url = new URL(info.body.url as string);
    const path = `${url.pathname}${url.search}`;
    await t.http().get(path).set('authorization', `Bearer ${ACCESS_TOKEN}`).expect(200);
    await t.http().get(path).set('authorization', 'Bearer EAAG-another').expect(401);
    const forged = new URL(url);
    forged.searchParams.set('hash', 'forged');
    await t
      .http()
      .get(`${forged.pathname}${forged.search}`)
      .set('authorization', `Bearer ${ACCESS_TOKEN}`)
      .expect(404);
  });

  it('sends hello_world from its catalog to anyone, and refuses a template it does not have (132001)', async () => {
    const hello = await send('whatsapp', wa.id, {
      to: '+34699999999',
      template: { name: 'hello_world', language: 'en_US' },
    });
    const unknown = await send('whatsapp', wa.id, {
      to: '+34699999999',
      template: { name: 'no_such_template', language: 'en_US' },
    });
    const missing = await send('whatsapp', wa.id, {
      to: '+34699999999',
      template: { name: 'appointment_reminder', language: 'en_US', parameters: ['Ana'] },
    });
    await settled('whatsapp', wa.id, hello.body.data.id, 'read');
    const refused = await settled('whatsapp', wa.id, unknown.body.data.id, 'failed');
    expect(refused.last_error?.code).toBe('132001');
    expect(refused.last_error?.message).toMatch(/no_such_template/);
    const mismatch = await settled('whatsapp', wa.id, missing.body.data.id, 'failed');
    expect(mismatch.last_error?.code).toBe('132000');
  });

  it('lists its template catalog to a channel with a business account', async () => {
    const synced = await givenWhatsappChannel(t, auth, {
      business_account_id: '102290129340398',
      access_token: ACCESS_TOKEN,
    });
    const listed = await eventually(async () => {
      const res = await t
        .http()
        .get(`/v1/channels/whatsapp/${synced.id}/templates`)
        .set(auth)
        .expect(200);
      expect(res.body.data.items.length).toBeGreaterThanOrEqual(3);
      return res.body.data.items as { name: string; language: string; status: string }[];
    });
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'hello_world', language: 'en_US', status: 'APPROVED' }),
        expect.objectContaining({ name: 'spring_sale' }),
      ]),
    );
    // Graph lists a business account's templates to a token of one of its channels only.
    const list = (account: string, token: string) =>
      t
        .http()
        .get(`/sandbox/graph/v23.0/${account}/message_templates`)
        .set('authorization', `Bearer ${token}`);
    await list('102290129340398', ACCESS_TOKEN).expect(200);
    const refused = await list('102290129340398', 'EAAG-another').expect(401);
    expect(refused.body.error).toMatchObject({ code: 190 });
    const unknown = await list('999000111222334', ACCESS_TOKEN).expect(400);
    expect(unknown.body.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it('keeps an upload, sends it as an image, and serves it back to the media download', async () => {
    const uploaded = await upload(wa.id);
    const mediaId: string = uploaded.body.data.media_id;
    expect(mediaId).toMatch(/^\d{15,17}$/);
    await inbound('whatsapp', wa.id, { from: CLIENT, text: 'Send me a photo' }).expect(202);
    const queued = await send('whatsapp', wa.id, {
      to: CLIENT,
      image: { media_id: mediaId, caption: 'Here it is' },
    });
    const read = await settled('whatsapp', wa.id, queued.body.data.id, 'read');
    const sent = t.app.get(SandboxConversations).find(read.wa_message_id!);
    expect(sent).toMatchObject({
      type: 'image',
      body: { image: { id: mediaId, caption: 'Here it is' } },
    });

    // The client sends it back: agentline downloads it from the sandbox with the channel's token.
    const back = await inbound('whatsapp', wa.id, {
      from: CLIENT,
      message: { type: 'image', image: { id: mediaId, caption: 'Like this?' } },
    }).expect(202);
    expect(back.body.data.state).toBe('received');
    const download = await t
      .http()
      .get(`/v1/channels/whatsapp/${wa.id}/media/${mediaId}`)
      .set(auth)
      .expect(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(download.body as Buffer, ONE_PIXEL_PNG)).toBe(0);
  });

  it('refuses a media id this number never uploaded, as Graph does (100)', async () => {
    const client = '+34644444444';
    await inbound('whatsapp', wa.id, { from: client, text: 'Send me the photo' }).expect(202);
    const authB = bearer(tokenFor({ org: newOrganization() }));
    const waB = await givenWhatsappChannel(t, authB, { access_token: 'EAAG-sandbox-b' });
    const theirs: string = (
      await t
        .http()
        .post(`/v1/channels/whatsapp/${waB.id}/media`)
        .set(authB)
        .attach('file', ONE_PIXEL_PNG, { filename: 'pixel.png', contentType: 'image/png' })
        .expect(201)
    ).body.data.media_id;
    for (const id of ['1234567890123456', theirs]) {
      const res = await graphSend(wa.number_id, {
        messaging_product: 'whatsapp',
        to: client.slice(1),
        type: 'image',
        image: { id },
      }).expect(400);
      expect(res.body.error).toMatchObject({
        code: 100,
        error_data: {
          details: "Param image['id'] is not a valid whatsapp business account media attachment ID",
        },
      });
    }
    const own: string = (await upload(wa.id)).body.data.media_id;
    await graphSend(wa.number_id, {
      messaging_product: 'whatsapp',
      to: client.slice(1),
      type: 'image',
      image: { id: own },
    }).expect(200);
  });

  it('answers a multipart body cut short with Graph’s 400, and lives on', async () => {
    const part = (name: string) =>
      `--cut\r\nContent-Disposition: form-data; name="${name}"; filename="a.png"\r\n` +
      'Content-Type: image/png\r\n\r\nnot all of it';
    // The boundary never closes: the part read and a part skipped both end unexpectedly.
    for (const body of [part('file'), `${part('other')}`]) {
      const res = await t
        .http()
        .post(`/sandbox/graph/v23.0/${wa.number_id}/media`)
        .set('authorization', `Bearer ${ACCESS_TOKEN}`)
        .set('content-type', 'multipart/form-data; boundary=cut')
        .send(body)
        .expect(400);
      expect(res.body.error).toMatchObject({ code: 100, type: 'OAuthException' });
    }
    await t.http().get('/health/live').expect(200);
  });

  it('keeps a deleted channel’s conversations and media from the next channel on its number', async () => {
    // Organization A's channel: a client writes, A uploads a file; then A deletes the channel.
    const client = '+34633333333';
    await inbound('whatsapp', wa.id, { from: client, text: 'For A only' }).expect(202);
    const theirMedia: string = (await upload(wa.id)).body.data.media_id;
    await t.http().delete(`/v1/channels/whatsapp/${wa.id}`).set(auth).expect(204);
    // Organization B binds the same number.
    const authB = bearer(tokenFor({ org: newOrganization() }));
    const tokenB = 'EAAG-sandbox-test-token-B';
    const waB = await givenWhatsappChannel(t, authB, {
      number_id: wa.number_id,
      access_token: tokenB,
    });
    const listed = await t.http().get('/sandbox/api/channels').set(authB).expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: waB.id, clients: [] })]);
    await t
      .http()
      .get(`/sandbox/api/conversations/whatsapp/${waB.id}/${client}`)
      .set(authB)
      .expect(200, { data: [] });
    // A's client never wrote to B: B's window with them is closed.
    const graph = (path: string) =>
      t.http().post(`/sandbox/graph/v23.0/${path}`).set('authorization', `Bearer ${tokenB}`);
    const late = await graph(`${waB.number_id}/messages`)
      .send({
        messaging_product: 'whatsapp',
        to: client.slice(1),
        type: 'text',
        text: { body: 'Hi' },
      })
      .expect(400);
    expect(late.body.error).toMatchObject({ code: 131047 });
    // A's file is not B's to read.
    const info = await t
      .http()
      .get(`/sandbox/graph/v23.0/${theirMedia}`)
      .set('authorization', `Bearer ${tokenB}`)
      .expect(400);
    expect(info.body.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it('sends for a Messenger page whose id is another organization’s WhatsApp number id', async () => {
    const authB = bearer(tokenFor({ org: newOrganization() }));
    const page = await givenMessangerChannel(t, authB, {
      user_id: wa.number_id,
      access_token: 'EAAG-sandbox-page-token',
    });
    await inbound('messanger', page.id, { from: PSID, text: 'Hello page' }, authB).expect(202);
    const hi = { recipient: { id: PSID }, messaging_type: 'RESPONSE', message: { text: 'Hi' } };
    const answer = await graphSend(page.user_id, hi, 'EAAG-sandbox-page-token').expect(200);
    expect(answer.body).toMatchObject({ recipient_id: PSID });
    // The WhatsApp channel on that id still sends with its own token, and a third token is refused.
    await graphSend(wa.number_id, {
      messaging_product: 'whatsapp',
      to: '34612345678',
      type: 'template',
      template: { name: 'hello_world', language: { code: 'en_US' } },
    }).expect(200);
    const refused = await graphSend(wa.number_id, hi, 'EAAG-another').expect(401);
    expect(refused.body.error).toMatchObject({ code: 190 });
  });

  it('fails a message to a number ending in 0000 with Meta’s 131026', async () => {
    const queued = await send('whatsapp', wa.id, {
      to: '+34611110000',
      template: { name: 'hello_world', language: 'en_US' },
    });
    const failed = await settled('whatsapp', wa.id, queued.body.data.id, 'failed');
    expect(failed.last_error?.code).toBe('131026');
    expect(states.get(failed.wa_message_id!)).toEqual(['accepted', 'failed']);
  });

  it('plays Messenger: a client writes, the page answers, Meta tells delivery and read', async () => {
    const page: MessangerChannel = await givenMessangerChannel(t, auth, {
      access_token: ACCESS_TOKEN,
    });
    // Before the client writes, Meta refuses a RESPONSE (agentline refuses it before asking).
    const early = await t
      .http()
      .post(`/sandbox/graph/v23.0/${page.user_id}/messages`)
      .set('authorization', `Bearer ${ACCESS_TOKEN}`)
      .send({ recipient: { id: PSID }, messaging_type: 'RESPONSE', message: { text: 'Hi' } })
      .expect(400);
    expect(early.body.error).toMatchObject({ code: 10, error_subcode: 2018278 });
    const written = await inbound('messanger', page.id, {
      from: PSID,
      text: 'Do you ship to Lisbon?',
    }).expect(202);
    expect(written.body.data).toEqual({
      message_id: expect.stringMatching(/^m_[\w-]+$/),
      state: 'received',
    });
    await eventually(async () => {
      const res = await t
        .http()
        .get(`/v1/channels/messanger/${page.id}/messages`)
        .set(auth)
        .expect(200);
      expect(res.body.data.items).toEqual([
        expect.objectContaining({ text: 'Do you ship to Lisbon?' }),
      ]);
    });
    const queued = await send('messanger', page.id, { to: PSID, text: 'We do!' });
    const read = await settled('messanger', page.id, queued.body.data.id, 'read');
    expect(read.wa_message_id).toMatch(/^m_[\w-]+$/);
    expect(states.get(read.wa_message_id!)).toEqual(['accepted', 'sent', 'delivered', 'read']);
  });

  it('lets a STOP through to agentline’s opt-out', async () => {
    await inbound('whatsapp', wa.id, { from: '+34655555555', text: 'STOP' }).expect(202);
    await eventually(async () => {
      const res = await t
        .http()
        .get(`/v1/channels/whatsapp/${wa.id}/opt-outs`)
        .set(auth)
        .expect(200);
      expect(res.body.data.items).toEqual([expect.objectContaining({ phone: '+34655555555' })]);
    });
  });

  describe('the inbound endpoint', () => {
    it('needs a token', async () => {
      await inbound('whatsapp', wa.id, { from: CLIENT, text: 'Hi' }, {}).expect(401);
    });

    it('answers 404 for another organization’s channel, and for a channel of the other kind', async () => {
      const other = bearer(tokenFor({ org: newOrganization() }));
      const res = await inbound('whatsapp', wa.id, { from: CLIENT, text: 'Hi' }, other).expect(404);
      expect(res.body).toMatchObject({
        code: 'not_found',
        detail: 'WhatsApp channel was not found.',
      });
      await inbound('messanger', wa.id, { from: PSID, text: 'Hi' }).expect(404);
    });

    it.each([
      [{ text: 'Hi' }, 'from'],
      [{ from: 'not a number', text: 'Hi' }, 'from'],
      [{ from: CLIENT }, 'text'],
      [{ from: CLIENT, text: 'Hi', message: { type: 'text', text: { body: 'Hi' } } }, 'message'],
      [{ from: CLIENT, message: { type: 'hologram', hologram: {} } }, 'message.type'],
      [{ from: CLIENT, message: { type: 'location' } }, 'message.location'],
      [{ from: CLIENT, message: { type: 'image', image: { id: '999' } } }, 'message.image.id'],
      [{ from: CLIENT, text: 'Hi', extra: true }, 'extra'],
    ])('refuses %j with a problem naming %s', async (body, field) => {
      const res = await inbound('whatsapp', wa.id, body).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    });
  });

  it('answers every example of its OpenAPI operations, as Swagger UI sends them', async () => {
    const doc = (await t.http().get('/v1/openapi.json').expect(200)).body as {
      paths: Record<string, { post: { requestBody: { content: Record<string, Examples> } } }>;
    };
    type Examples = { examples: Record<string, { value: Record<string, unknown> }> };
    const page = await givenMessangerChannel(t, auth);
    const uploaded = await upload(wa.id);
    for (const [kind, channelId] of [
      ['whatsapp', wa.id],
      ['messanger', page.id],
    ]) {
      const { examples } =
        doc.paths[`/sandbox/${kind}/{channel_id}/inbound`].post.requestBody.content[
          'application/json'
        ];
      expect(Object.keys(examples).length).toBeGreaterThan(1);
      for (const [name, { value }] of Object.entries(examples)) {
        // The image example names a media id, which only an upload to this channel makes real.
        const message = value.message as { image?: { id: string } } | undefined;
        const body = message?.image
          ? {
              ...value,
              message: { ...message, image: { ...message.image, id: uploaded.body.data.media_id } },
            }
          : value;
        const res = await inbound(kind, channelId, body);
        expect({ name, status: res.status, state: res.body.data?.state }).toEqual({
          name,
          status: 202,
          state: 'received',
        });
      }
    }
  });

  it('does not weaken the webhook: a notification not signed with the app secret is refused', async () => {
    const body = JSON.stringify(
      whatsappNotification(wa.number_id, { messages: [aWhatsappText({ from: '34612345678' })] }),
    );
    const res = await t
      .http()
      .post(`/v1/webhooks/whatsapp/${wa.id}`)
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', metaSignature(body, 'a-secret-that-is-not-the-sandbox-one'))
      .send(body)
      .expect(401);
    expect(res.body.code).toBe('invalid_signature');
  });
});

describe('Meta sandbox off (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({});
  });
  afterAll(() => t.close());

  it('answers 404 to a simulated client and has no stand-in for Graph', async () => {
    const auth = bearer(tokenFor({ org: newOrganization() }));
    const wa = await givenWhatsappChannel(t, auth);
    const res = await t
      .http()
      .post(`/sandbox/whatsapp/${wa.id}/inbound`)
      .set(auth)
      .send({ from: CLIENT, text: 'Hi' })
      .expect(404);
    expect(res.body).toMatchObject({
      code: 'not_found',
      detail: expect.stringMatching(/META_SANDBOX=true/),
    });
    await t.http().post(`/sandbox/graph/v23.0/${wa.number_id}/messages`).send({}).expect(404);
  });

  it('answers 404 before the token and the body are looked at', async () => {
    const auth = bearer(tokenFor({ org: newOrganization() }));
    for (const kind of ['whatsapp', 'messanger']) {
      const path = `/sandbox/${kind}/00000000-0000-4000-8000-000000000000/inbound`;
      const unauthenticated = await t.http().post(path).send({ from: CLIENT, text: 'Hi' });
      expect([unauthenticated.status, unauthenticated.body.code]).toEqual([404, 'not_found']);
      const badBody = await t
        .http()
        .post(path)
        .set(auth)
        .send({ nonsense: [1] });
      expect([badBody.status, badBody.body.code]).toEqual([404, 'not_found']);
      expect(badBody.headers['content-type']).toContain('application/problem+json');
    }
  });
});
