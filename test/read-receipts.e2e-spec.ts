import { randomUUID } from 'node:crypto';
import { eventually } from './support/eventually';
import { FakeGraphApi, graphError, graphErrorReply } from './support/fake-graph-api';
import {
  givenInboundMessage,
  givenMessangerChannel,
  givenWhatsappChannel,
  WhatsappChannel,
} from './support/given';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const META_SECRET = 'meta-app-secret-for-receipts';
const TIMEOUT_MS = 1500;

/**
 * POST /v1/channels/whatsapp/{id}/messages/{message_id}/read and POST
 * /v1/channels/messanger/{id}/sender-actions against a fake Graph API that checks Meta's shapes.
 */
describe('Read receipts, typing and sender actions (e2e)', () => {
  let t: TestApp;
  let fake: FakeGraphApi;
  let auth: Record<string, string>;
  let whatsapp: WhatsappChannel;
  let token: string;

  beforeAll(async () => {
    fake = await FakeGraphApi.start();
    t = await startApp({
      META_APP_SECRET: META_SECRET,
      GRAPH_API_URL: fake.url,
      GRAPH_API_TIMEOUT_MS: String(TIMEOUT_MS),
    });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(async () => {
    fake.reset();
    auth = bearer(tokenFor({ org: newOrganization() }));
    token = `EAAG-receipts-${randomUUID()}`;
    whatsapp = await givenWhatsappChannel(t, auth, { access_token: token });
  });

  /** A client's message to the channel, once agentline lists it. */
  async function inbound(channel = whatsapp): Promise<string> {
    const { id } = await givenInboundMessage(t, channel, META_SECRET);
    await eventually(async () => {
      const res = await t.http().get(`/v1/channels/whatsapp/${channel.id}/messages`).set(auth);
      expect((res.body.data.items as { message_id: string }[]).map((m) => m.message_id)).toContain(
        id,
      );
    });
    return id;
  }
  const read = (messageId: string, body?: object, channelId = whatsapp.id, as = auth) => {
    const request = t
      .http()
      .post(`/v1/channels/whatsapp/${channelId}/messages/${encodeURIComponent(messageId)}/read`)
      .set(as);
    return body === undefined ? request : request.send(body);
  };

  describe('WhatsApp read receipts', () => {
    it("marks the message read with Meta's exact body, with the channel's token: 204", async () => {
      const messageId = await inbound();
      const res = await read(messageId).expect(204);

      expect(res.text).toBe('');
      expect(fake.actions.readReceipts).toEqual([
        {
          senderId: whatsapp.number_id,
          accessToken: token,
          payload: { messaging_product: 'whatsapp', status: 'read', message_id: messageId },
        },
      ]);
    });

    it('adds the typing indicator with typing: true, and not with typing: false', async () => {
      const messageId = await inbound();
      await read(messageId, { typing: true }).expect(204);
      await read(messageId, { typing: false }).expect(204);

      expect(fake.actions.readReceipts.map((r) => r.payload)).toEqual([
        {
          messaging_product: 'whatsapp',
          status: 'read',
          message_id: messageId,
          typing_indicator: { type: 'text' },
        },
        { messaging_product: 'whatsapp', status: 'read', message_id: messageId },
      ]);
    });

    it('refuses a bad body with 400 naming the field, without asking Meta', async () => {
      const messageId = await inbound();
      for (const body of [
        { typing: 'yes' },
        { typing: null },
        { typing: true, to: '+34612345678' },
      ]) {
        const res = await read(messageId, body).expect(400);
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.errors[0].field).toMatch(/^(typing|to)$/);
      }
      const res = await read('wamid. with spaces').expect(400);
      expect(res.body.errors).toEqual([{ field: 'message_id', message: expect.any(String) }]);
      expect(fake.requests).toBe(0);
    });

    it("answers 404 for a message the channel did not receive: another channel's, or unknown", async () => {
      const other = await givenWhatsappChannel(t, auth);
      const elsewhere = await inbound(other);
      for (const messageId of [elsewhere, 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQ0']) {
        const res = await read(messageId).expect(404);
        expect(res.body).toMatchObject({ code: 'not_found', detail: 'Message was not found.' });
      }
      expect(fake.requests).toBe(0);
    });

    it("answers 404 for another organization's channel, a Messanger channel or an unknown id", async () => {
      const messageId = await inbound();
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      await read(messageId, undefined, whatsapp.id, stranger).expect(404);
      const messanger = await givenMessangerChannel(t, auth);
      await read(messageId, undefined, messanger.id).expect(404);
      await read(messageId, undefined, randomUUID()).expect(404);
      await read(messageId, undefined, 'not-a-uuid').expect(404);
      expect(fake.requests).toBe(0);
    });

    it('a token Graph refuses (190): 422 channel_not_usable and the channel inactive; then 422 without asking', async () => {
      const messageId = await inbound();
      fake.enqueue(graphErrorReply(401, 190, 'Error validating access token'));
      const refused = await read(messageId).expect(422);
      expect(refused.body.code).toBe('channel_not_usable');
      expect(refused.body.detail).toContain('Error validating access token');
      expect(refused.text).not.toContain(token);

      const channel = await t.http().get(`/v1/channels/whatsapp/${whatsapp.id}`).set(auth);
      expect(channel.body.data.status).toBe('inactive');
      const requests = fake.requests;
      const again = await read(messageId).expect(422);
      expect(again.body.detail).toContain('is inactive');
      expect(fake.requests).toBe(requests);
    });

    describe("Graph's failures", () => {
      let messageId: string;
      beforeEach(async () => {
        messageId = await inbound();
      });

      it("400 (an error agentline does not expect): 502 bad_gateway with Meta's message", async () => {
        fake.enqueue(graphErrorReply(400, 100, '(#100) Invalid parameter'));
        const res = await read(messageId).expect(502);
        expect(res.body).toMatchObject({
          code: 'bad_gateway',
          detail: "Meta's answer cannot be used: (#100) Invalid parameter.",
        });
      });

      it('429: 503 upstream_unavailable with Retry-After', async () => {
        fake.enqueue({
          status: 429,
          body: graphError(80007, 'Rate limit hit'),
          headers: { 'retry-after': '7' },
        });
        const res = await read(messageId).expect(503);
        expect(res.body.code).toBe('upstream_unavailable');
        expect(res.headers['retry-after']).toBe('7');
      });

      it('500: 503 upstream_unavailable', async () => {
        fake.enqueue({ status: 500, rawBody: 'oops' });
        const res = await read(messageId).expect(503);
        expect(res.body.code).toBe('upstream_unavailable');
      });

      it('no answer: 504 upstream_timeout after GRAPH_API_TIMEOUT_MS', async () => {
        fake.enqueue('hang');
        const res = await read(messageId).expect(504);
        expect(res.body).toMatchObject({
          code: 'upstream_timeout',
          detail: `Graph API did not answer within ${TIMEOUT_MS} ms.`,
        });
      });

      it('a connection cut: 503; garbage with 200: 502', async () => {
        fake.enqueue('destroy');
        expect((await read(messageId).expect(503)).body.code).toBe('upstream_unavailable');
        fake.enqueue({ status: 200, rawBody: '<html>hello</html>' });
        expect((await read(messageId).expect(502)).body.code).toBe('bad_gateway');
        fake.enqueue({ status: 200, body: { success: false } });
        expect((await read(messageId).expect(502)).body.code).toBe('bad_gateway');
      });
    });
  });

  describe('Messenger sender actions', () => {
    const psid = '6543210987654321';
    const act = (channelId: string, body: unknown, as = auth) =>
      t
        .http()
        .post(`/v1/channels/messanger/${channelId}/sender-actions`)
        .set(as)
        .send(body as object);

    it("sends each action with Meta's exact body, with the page's token: 204", async () => {
      const pageToken = `EAAG-page-${randomUUID()}`;
      const page = await givenMessangerChannel(t, auth, { access_token: pageToken });
      for (const action of ['typing_on', 'typing_off', 'mark_seen']) {
        const res = await act(page.id, { to: psid, action }).expect(204);
        expect(res.text).toBe('');
      }
      expect(fake.actions.senderActions).toEqual(
        ['typing_on', 'typing_off', 'mark_seen'].map((action) => ({
          senderId: page.user_id,
          accessToken: pageToken,
          payload: { recipient: { id: psid }, sender_action: action },
        })),
      );
    });

    it('refuses a bad body with 400 naming the field, without asking Meta', async () => {
      const page = await givenMessangerChannel(t, auth);
      for (const [body, field] of [
        [{ to: '+34612345678', action: 'typing_on' }, 'to'],
        [{ action: 'typing_on' }, 'to'],
        [{ to: psid, action: 'react' }, 'action'],
        [{ to: psid }, 'action'],
        [{ to: psid, action: 'typing_on', text: 'hi' }, 'text'],
      ] as const) {
        const res = await act(page.id, body).expect(400);
        expect(res.body.code).toBe('validation_failed');
        expect((res.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
      }
      expect(fake.requests).toBe(0);
    });

    it("answers 404 for another organization's page, a WhatsApp channel or an unknown id", async () => {
      const page = await givenMessangerChannel(t, auth);
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      const body = { to: psid, action: 'typing_on' };
      await act(page.id, body, stranger).expect(404);
      await act(whatsapp.id, body).expect(404);
      await act(randomUUID(), body).expect(404);
      expect(fake.requests).toBe(0);
    });

    it('maps Graph failures like the read receipt: 190 deactivates, 400 502, 500 503, silence 504', async () => {
      const page = await givenMessangerChannel(t, auth);
      const body = { to: psid, action: 'mark_seen' };
      fake.enqueue(graphErrorReply(400, 100, '(#100) No matching user found'));
      expect((await act(page.id, body).expect(502)).body.detail).toContain(
        'No matching user found',
      );
      fake.enqueue({ status: 500, rawBody: 'oops' });
      expect((await act(page.id, body).expect(503)).body.code).toBe('upstream_unavailable');
      fake.enqueue('hang');
      expect((await act(page.id, body).expect(504)).body.code).toBe('upstream_timeout');
      fake.enqueue({ status: 200, body: { ok: true } });
      expect((await act(page.id, body).expect(502)).body.code).toBe('bad_gateway');
      fake.enqueue(graphErrorReply(400, 190, 'Error validating access token'));
      expect((await act(page.id, body).expect(422)).body.code).toBe('channel_not_usable');
      const requests = fake.requests;
      const again = await act(page.id, body).expect(422);
      expect(again.body.detail).toContain('is inactive');
      expect(fake.requests).toBe(requests);
      // Only the 200 with a body that is not Meta's was accepted by the fake.
      expect(fake.actions.senderActions).toHaveLength(1);
    });
  });
});
