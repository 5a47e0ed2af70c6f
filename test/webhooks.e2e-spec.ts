import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import {
  givenChannel,
  givenInboundMessage,
  givenMessangerChannel,
  givenWhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import {
  aWhatsappText,
  messangerNotification,
  metaSignature,
  whatsappNotification,
} from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

/** Meta's app secrets as agentline is configured with them (two: a rotation in progress). */
const SECRET = 'meta-app-secret-current';
const OLD_SECRET = 'meta-app-secret-previous';

const sign = (raw: string, secret = SECRET) => metaSignature(raw, secret);

const seconds = (ms: number) => String(Math.floor(ms / 1000));

describe('Meta webhooks (e2e)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    t = await startApp({ META_APP_SECRET: `${SECRET},${OLD_SECRET}` }, { clock });
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    org = newOrganization();
    auth = bearer(tokenFor({ org }));
  });

  const whatsapp = () => givenWhatsappChannel(t, auth);
  const messanger = () => givenMessangerChannel(t, auth);
  const post = (path: string, payload: unknown, signature?: string | null) => {
    const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const request = t.http().post(path).set('content-type', 'application/json');
    if (signature !== null) request.set('x-hub-signature-256', signature ?? sign(raw));
    return request.send(raw);
  };
  const inbox = async (channelId: string) =>
    (await t.app
      .get(DataSource)
      .query('SELECT status, error FROM webhook_inbox WHERE channel_id = $1', [channelId])) as {
      status: string;
      error: string | null;
    }[];
  const messages = async (kind: string, id: string, query = '') =>
    (await t.http().get(`/v1/channels/${kind}/${id}/messages${query}`).set(auth).expect(200)).body
      .data;
  const text = (from: string, body: string) => aWhatsappText({ from, body, at: clock.now() });

  describe("Meta's verification handshake", () => {
    it('answers hub.challenge as text/plain for the channel’s verify token, on both kinds', async () => {
      for (const channel of [
        { kind: 'whatsapp', ...(await whatsapp()) },
        { kind: 'messanger', ...(await messanger()) },
      ]) {
        expect(channel.webhook_url).toBe(
          `http://localhost:3000/v1/webhooks/${channel.kind}/${channel.id}`,
        );
        const res = await t
          .http()
          .get(`/v1/webhooks/${channel.kind}/${channel.id}`)
          .query({
            'hub.mode': 'subscribe',
            'hub.verify_token': channel.verification_token,
            'hub.challenge': '1158201444',
          })
          .expect(200);
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        expect(res.text).toBe('1158201444');
      }
    });

    it.each([
      ['a wrong verify token', { 'hub.verify_token': 'not-the-token' }],
      ['a mode other than subscribe', { 'hub.mode': 'unsubscribe' }],
      ['no challenge', { 'hub.challenge': undefined }],
      ['no verify token', { 'hub.verify_token': undefined }],
    ])('answers 403 problem+json for %s', async (_, override) => {
      const channel = await whatsapp();
      const query = {
        'hub.mode': 'subscribe',
        'hub.verify_token': channel.verification_token,
        'hub.challenge': '42',
        ...override,
      };
      const res = await t
        .http()
        .get(`/v1/webhooks/whatsapp/${channel.id}`)
        .query(Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)))
        .expect(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 403, code: 'forbidden' });
    });

    it('answers one and the same 403 for an unknown channel, a malformed id, a removed channel or a wrong token', async () => {
      const channel = await whatsapp();
      const other = await whatsapp();
      const removed = await whatsapp();
      await t.http().delete(`/v1/channels/whatsapp/${removed.id}`).set(auth).expect(204);
      // What tells one answer from another, apart from what differs per request by nature.
      const refusal = async (path: string, token: string) => {
        const res = await t
          .http()
          .get(`/v1/webhooks/${path}`)
          .query({ 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '1' });
        const headers: Record<string, unknown> = { ...res.headers };
        for (const name of ['date', 'etag', 'x-request-id']) delete headers[name];
        const body = JSON.parse(res.text) as Record<string, unknown>;
        delete body.request_id;
        return { status: res.status, headers, body };
      };
      const wrongToken = await refusal(`whatsapp/${channel.id}`, other.verification_token);
      expect(wrongToken.status).toBe(403);
      expect(wrongToken.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(wrongToken.body).toMatchObject({ status: 403, code: 'forbidden' });
      for (const [path, token] of [
        [`whatsapp/${randomUUID()}`, channel.verification_token],
        ['whatsapp/not-a-uuid', channel.verification_token],
        [`whatsapp/${removed.id}`, removed.verification_token],
        // A WhatsApp channel's id and token do not open the Messenger URL.
        [`messanger/${channel.id}`, channel.verification_token],
      ]) {
        expect({ path, ...(await refusal(path, token)) }).toEqual({ path, ...wrongToken });
      }
    });
  });

  describe('notification signatures', () => {
    it.each([
      ['missing', null],
      ['not sha256=<hex>', 'sha1=abcdef'],
      ['of another body', sign('{"object":"page"}')],
      ['made with another secret', sign('{}', 'some-other-app-secret')],
      ['truncated', sign('{}').slice(0, 40)],
    ])('answers 401 and stores nothing when it is %s', async (_, signature) => {
      const channel = await whatsapp();
      const payload = whatsappNotification(channel.number_id, {
        messages: [text('34612345678', 'hello')],
      });
      const res = await post(`/v1/webhooks/whatsapp/${channel.id}`, payload, signature);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_signature' });
      expect(await inbox(channel.id)).toEqual([]);
    });

    it('accepts a notification signed with any configured secret', async () => {
      const channel = await whatsapp();
      const raw = JSON.stringify(
        whatsappNotification(channel.number_id, { messages: [text('34612345678', 'hi')] }),
      );
      await post(`/v1/webhooks/whatsapp/${channel.id}`, raw, sign(raw, OLD_SECRET)).expect(200);
      await eventually(async () =>
        expect((await messages('whatsapp', channel.id)).total_count).toBe(1),
      );
    });

    it('answers 403 to a notification for a channel removed a moment ago, though it was just accepted', async () => {
      const channel = await whatsapp();
      const raw = JSON.stringify(
        whatsappNotification(channel.number_id, { messages: [text('34612345678', 'hi')] }),
      );
      await post(`/v1/webhooks/whatsapp/${channel.id}`, raw, sign(raw, OLD_SECRET)).expect(200);
      await t.http().delete(`/v1/channels/whatsapp/${channel.id}`).set(auth).expect(204);
      const again = JSON.stringify(
        whatsappNotification(channel.number_id, { messages: [text('34612345678', 'still?')] }),
      );
      await post(`/v1/webhooks/whatsapp/${channel.id}`, again, sign(again, OLD_SECRET)).expect(403);
    });

    it('answers 403 to a signed notification for a channel that does not exist', async () => {
      await post(`/v1/webhooks/whatsapp/${randomUUID()}`, { object: 'page', entry: [] }).expect(
        403,
      );
    });

    describe("a channel's own app_secret", () => {
      const CHANNEL_SECRET = 'the-channel-own-app-secret';
      const withOwnSecret = (secret = CHANNEL_SECRET) =>
        givenWhatsappChannel(t, auth, { app_secret: secret });

      it('verifies its notifications alone: accepted signed with it, 401 signed with a META_APP_SECRET', async () => {
        for (const kind of ['whatsapp', 'messanger'] as const) {
          const channel = await givenChannel(t, auth, kind, { app_secret: CHANNEL_SECRET });
          const raw = JSON.stringify(
            'number_id' in channel
              ? whatsappNotification(channel.number_id, { messages: [text('34612345678', 'hi')] })
              : messangerNotification(channel.user_id, '6543210987', [
                  {
                    timestamp: clock.now(),
                    message: { mid: `m_${randomUUID()}`, text: 'hi' },
                  },
                ]),
          );
          for (const global of [SECRET, OLD_SECRET]) {
            const refused = await post(
              `/v1/webhooks/${kind}/${channel.id}`,
              raw,
              sign(raw, global),
            );
            // The very answer of a wrong signature today: nothing tells that this channel is special.
            expect(refused.status).toBe(401);
            expect(refused.body).toMatchObject({
              code: 'invalid_signature',
              detail: 'X-Hub-Signature-256 is missing or does not match the body.',
            });
          }
          expect(await inbox(channel.id)).toEqual([]);
          await post(`/v1/webhooks/${kind}/${channel.id}`, raw, sign(raw, CHANNEL_SECRET)).expect(
            200,
          );
          await eventually(async () =>
            expect((await messages(kind, channel.id)).total_count).toBe(1),
          );
        }
      });

      it('follows a PUT that replaces it, at once though the channel was just read', async () => {
        const channel = await withOwnSecret();
        // Accepted first: this process keeps the channel it found (docs/webhooks.md).
        const before = JSON.stringify(whatsappNotification(channel.number_id, { statuses: [] }));
        await post(
          `/v1/webhooks/whatsapp/${channel.id}`,
          before,
          sign(before, CHANNEL_SECRET),
        ).expect(200);
        await t
          .http()
          .put(`/v1/channels/whatsapp/${channel.id}`)
          .set(auth)
          .send({ app_secret: 'the-rotated-app-secret' })
          .expect(200);
        const raw = JSON.stringify(whatsappNotification(channel.number_id, { statuses: [] }));
        await post(`/v1/webhooks/whatsapp/${channel.id}`, raw, sign(raw, CHANNEL_SECRET)).expect(
          401,
        );
        await post(
          `/v1/webhooks/whatsapp/${channel.id}`,
          raw,
          sign(raw, 'the-rotated-app-secret'),
        ).expect(200);
      });

      it('refuses every notification when its secret cannot be decrypted, and says so once, not per request', async () => {
        const channel = await withOwnSecret();
        await t.app
          .get(DataSource)
          .query(
            "UPDATE whatsapp_channels SET app_secret_encrypted = 'v1:unreadable' WHERE id = $1",
            [channel.id],
          );
        const raw = JSON.stringify(whatsappNotification(channel.number_id, { statuses: [] }));
        for (let i = 0; i < 5; i++) {
          await post(`/v1/webhooks/whatsapp/${channel.id}`, raw, sign(raw, CHANNEL_SECRET)).expect(
            401,
          );
        }
        const warnings = t
          .logs()
          .split('\n')
          .filter(
            (line) => line.includes('app secret cannot be decrypted') && line.includes(channel.id),
          );
        expect(warnings).toHaveLength(1);
      });

      it('is not reached through a sibling channel verified with another secret', async () => {
        // A META_APP_SECRET signs for the first channel; the second trusts only its own secret.
        const first = await whatsapp();
        const second = await withOwnSecret();
        await post(
          `/v1/webhooks/whatsapp/${first.id}`,
          whatsappNotification(second.number_id, { messages: [text('34612345678', 'forged')] }),
        ).expect(200);
        await eventually(async () =>
          expect((await inbox(first.id)).map((row) => row.status)).toEqual(['malformed']),
        );
        expect((await inbox(first.id))[0].error).toBe(
          `entry[0].changes[0].value.messages[0]: for phone_number_id ${second.number_id}, whose channel is verified with another app secret`,
        );
        expect((await messages('whatsapp', second.id)).total_count).toBe(0);
      });

      it('reaches a sibling channel bound to the same secret', async () => {
        const created = [await withOwnSecret(), await withOwnSecret()];
        const raw = JSON.stringify(
          whatsappNotification(created[1].number_id, {
            messages: [text('34612345678', 'for the second')],
          }),
        );
        await post(`/v1/webhooks/whatsapp/${created[0].id}`, raw, sign(raw, CHANNEL_SECRET)).expect(
          200,
        );
        await eventually(async () =>
          expect((await messages('whatsapp', created[1].id)).total_count).toBe(1),
        );
      });

      it('never writes it to the log', async () => {
        const secret = `logged-never-${randomUUID()}`;
        const channel = await withOwnSecret(secret);
        const raw = JSON.stringify(whatsappNotification(channel.number_id, { statuses: [] }));
        await post(`/v1/webhooks/whatsapp/${channel.id}`, raw, sign(raw, secret)).expect(200);
        await post(`/v1/webhooks/whatsapp/${channel.id}`, raw).expect(401);
        expect(t.logs()).toContain(channel.id);
        expect(t.logs()).not.toContain(secret);
      });
    });

    it('keeps the body limit: 413 problem+json', async () => {
      const channel = await whatsapp();
      const raw = `{"pad":"${'x'.repeat(1024 * 1024)}"}`;
      const res = await post(`/v1/webhooks/whatsapp/${channel.id}`, raw);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ code: 'payload_too_large' });
    });
  });

  describe('inbound WhatsApp messages', () => {
    it('keeps every message type once, lists them newest first, and ignores a resend', async () => {
      const channel = await whatsapp();
      const at = clock.now();
      const base = (
        type: string,
        id: string,
        content: Record<string, unknown>,
        offset: number,
      ) => ({
        from: '34612345678',
        id,
        timestamp: seconds(at + offset * 1000),
        type,
        ...content,
      });
      const all = [
        base('text', 'wamid.1', { text: { body: 'Hello there' } }, 1),
        base(
          'image',
          'wamid.2',
          { image: { id: 'media-1', mime_type: 'image/jpeg', caption: 'my receipt' } },
          2,
        ),
        base('audio', 'wamid.3', { audio: { id: 'media-2', mime_type: 'audio/ogg' } }, 3),
        base(
          'location',
          'wamid.4',
          { location: { latitude: 40.4, longitude: -3.7, name: 'Office' } },
          4,
        ),
        base('reaction', 'wamid.5', { reaction: { message_id: 'wamid.out', emoji: '👍' } }, 5),
        base(
          'interactive',
          'wamid.6',
          {
            interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes please' } },
          },
          6,
        ),
        base('sticker', 'wamid.7', { sticker: { id: 'media-3', mime_type: 'image/webp' } }, 7),
        base(
          'unsupported',
          'wamid.8',
          { errors: [{ code: 131051, title: 'Message type unknown' }] },
          8,
        ),
      ];
      const payload = whatsappNotification(channel.number_id, {
        messages: all,
        statuses: [],
      });
      await post(`/v1/webhooks/whatsapp/${channel.id}`, payload).expect(200);
      // Meta resends the same notification, and then a new one carrying an old message again.
      await post(`/v1/webhooks/whatsapp/${channel.id}`, payload).expect(200);
      await post(
        `/v1/webhooks/whatsapp/${channel.id}`,
        whatsappNotification(channel.number_id, { messages: [all[0]] }),
      ).expect(200);
      const page = await eventually(async () => {
        const listed = await messages('whatsapp', channel.id);
        expect(listed.total_count).toBe(8);
        expect((await inbox(channel.id)).map((row) => row.status)).toEqual([
          'processed',
          'processed',
        ]);
        return listed;
      });
      expect(
        page.items.map((m: { type: string; text: string | null }) => [m.type, m.text]),
      ).toEqual([
        ['unsupported', null],
        ['sticker', null],
        ['interactive', 'Yes please'],
        ['reaction', '👍'],
        ['location', 'Office'],
        ['audio', null],
        ['image', 'my receipt'],
        ['text', 'Hello there'],
      ]);
      expect(page.items[7]).toEqual({
        id: expect.any(String),
        channel_id: channel.id,
        from: '+34612345678',
        from_user_id: null,
        profile: null,
        message_id: 'wamid.1',
        type: 'text',
        text: 'Hello there',
        content: null,
        context: null,
        referral: null,
        raw: {
          from: '34612345678',
          id: 'wamid.1',
          timestamp: String(Math.floor((at + 1000) / 1000)),
          type: 'text',
          text: { body: 'Hello there' },
        },
        received_at: Math.floor((at + 1000) / 1000) * 1000,
      });
      const filtered = await messages(
        'whatsapp',
        channel.id,
        '?from=%2B34612345678&limit=2&offset=1',
      );
      expect(filtered).toMatchObject({ offset: 1, total_count: 8 });
      expect(filtered.items.map((m: { message_id: string }) => m.message_id)).toEqual([
        'wamid.7',
        'wamid.6',
      ]);
      expect((await messages('whatsapp', channel.id, '?from=%2B14155552671')).total_count).toBe(0);
    });

    it('keeps a signed but malformed notification for inspection, answers 200, and keeps what it could read', async () => {
      const channel = await whatsapp();
      await post(
        `/v1/webhooks/whatsapp/${channel.id}`,
        '{"object": "whatsapp_business_account", ',
      ).expect(200);
      await post(`/v1/webhooks/whatsapp/${channel.id}`, { hello: 'world' }).expect(200);
      await post(
        `/v1/webhooks/whatsapp/${channel.id}`,
        whatsappNotification(channel.number_id, {
          messages: [{ id: 'wamid.no-from', type: 'text' }, text('34612345678', 'readable')],
        }),
      ).expect(200);
      const rows = await eventually(async () => {
        const current = await inbox(channel.id);
        expect(current.filter((row) => row.status === 'pending')).toEqual([]);
        expect(current).toHaveLength(3);
        return current;
      });
      expect(rows.map((row) => row.status)).toEqual(['malformed', 'malformed', 'malformed']);
      expect(rows.map((row) => row.error).sort()).toEqual([
        'entry[0].changes[0].value.messages[0]: needs from (a phone number) or from_user_id',
        'not a WhatsApp Business Account notification',
        'the body is not JSON',
      ]);
      expect(
        (await messages('whatsapp', channel.id)).items.map((m: { text: string }) => m.text),
      ).toEqual(['readable']);
    });

    it('keeps exact bytes: a body that is not UTF-8, or holds a NUL byte, is stored and marked malformed', async () => {
      const channel = await whatsapp();
      for (const raw of [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), Buffer.from('{"a":"\u0000\0"}')]) {
        const withNul = Buffer.concat([raw, Buffer.from([0x00])]);
        await t
          .http()
          .post(`/v1/webhooks/whatsapp/${channel.id}`)
          // Not application/json here: supertest would re-encode a Buffer as JSON. The webhook
          // reads bytes whatever the type says.
          .set('content-type', 'application/octet-stream')
          .set('x-hub-signature-256', metaSignature(withNul, SECRET))
          .send(withNul)
          .expect(200);
      }
      const rows = await eventually(async () => {
        const current = await inbox(channel.id);
        expect(current.map((row) => row.status)).toEqual(['malformed', 'malformed']);
        return current;
      });
      expect(rows.map((row) => row.error).sort()).toEqual([
        'the body is not JSON',
        'the body is not UTF-8',
      ]);
    });

    it("files a change for another phone number id under the organization's channel of that number", async () => {
      // One Meta app has one callback URL: Meta sends every number's notifications to it.
      const first = await whatsapp();
      const second = await whatsapp();
      const foreign = await givenWhatsappChannel(t, bearer(tokenFor({ org: newOrganization() })));
      await post(
        `/v1/webhooks/whatsapp/${first.id}`,
        whatsappNotification(second.number_id, {
          messages: [text('34612345678', 'for the second')],
        }),
      ).expect(200);
      await post(
        `/v1/webhooks/whatsapp/${first.id}`,
        whatsappNotification(foreign.number_id, { messages: [text('34612345678', 'not ours')] }),
      ).expect(200);
      await eventually(async () => {
        expect(
          (await messages('whatsapp', second.id)).items.map((m: { text: string }) => m.text),
        ).toEqual(['for the second']);
        expect((await inbox(first.id)).map((row) => row.status).sort()).toEqual([
          'malformed',
          'processed',
        ]);
      });
      expect((await messages('whatsapp', first.id)).total_count).toBe(0);
      expect((await inbox(first.id)).find((row) => row.status === 'malformed')?.error).toBe(
        `entry[0].changes[0].value.messages[0]: for phone_number_id ${foreign.number_id}, which no channel of this organization has`,
      );
      expect(
        await t.app
          .get(DataSource)
          .query('SELECT item, reason FROM webhook_items_set_aside WHERE channel_id = $1', [
            first.id,
          ]),
      ).toEqual([{ item: 'message', reason: 'unknown_account' }]);
    });

    it('processes a notification left unprocessed (a crash after the 200) when the inbox is drained again', async () => {
      const channel = await whatsapp();
      const raw = JSON.stringify(
        whatsappNotification(channel.number_id, { messages: [text('34612345678', 'left behind')] }),
      );
      // As if the process died after storing: a pending row nobody is working on.
      await t.app.get(DataSource).query(
        `INSERT INTO webhook_inbox (id, organization_id, channel_kind, channel_id, body, body_sha256,
                                    status, attempts, next_attempt_at, received_at)
         VALUES ($1, $2, 'whatsapp', $3, $4, 'x', 'pending', 0, $5, $5)`,
        [randomUUID(), org, channel.id, Buffer.from(raw), new Date(clock.now()).toISOString()],
      );
      await eventually(
        async () => expect((await messages('whatsapp', channel.id)).total_count).toBe(1),
        15_000,
      );
    });
  });

  describe('inbound Messenger messages', () => {
    it('keeps messages and attachments, ignores echoes and other pages', async () => {
      const channel = await messanger();
      const at = clock.now();
      const event = (extra: Record<string, unknown>, recipient = channel.user_id) => ({
        sender: { id: '6543210987' },
        recipient: { id: recipient },
        timestamp: at,
        ...extra,
      });
      await post(`/v1/webhooks/messanger/${channel.id}`, {
        object: 'page',
        entry: [
          {
            id: channel.user_id,
            time: at,
            messaging: [
              event({ message: { mid: 'm_1', text: 'Hi page' } }),
              event({
                message: {
                  mid: 'm_2',
                  attachments: [{ type: 'image', payload: { url: 'https://x' } }],
                },
              }),
              event({ message: { mid: 'm_3', text: 'our own reply', is_echo: true } }),
              event({ message: { mid: 'm_4', text: 'for another page' } }, '111'),
            ],
          },
        ],
      }).expect(200);
      const page = await eventually(async () => {
        const listed = await messages('messanger', channel.id);
        expect(listed.total_count).toBe(2);
        return listed;
      });
      expect(
        page.items
          .map((m: { from: string; type: string; text: string | null }) => [m.from, m.type, m.text])
          .sort(),
      ).toEqual([
        ['6543210987', 'image', null],
        ['6543210987', 'text', 'Hi page'],
      ]);
    });
  });

  describe('opt-out', () => {
    const optOuts = async (id: string) =>
      (await t.http().get(`/v1/channels/whatsapp/${id}/opt-outs`).set(auth).expect(200)).body.data;

    it('opts a sender out with STOP (any case, trimmed) and back in with START', async () => {
      const channel = await whatsapp();
      const url = `/v1/webhooks/whatsapp/${channel.id}`;
      await post(
        url,
        whatsappNotification(channel.number_id, { messages: [text('34612345678', '  stop ')] }),
      ).expect(200);
      await post(
        url,
        whatsappNotification(channel.number_id, { messages: [text('14155552671', 'STOP please')] }),
      ).expect(200);
      // Items and count are awaited together (they now come from one statement; when they came
      // from two, the count saw the row a moment before the items on PostgreSQL).
      const listed = await eventually(async () => {
        const current = await optOuts(channel.id);
        expect(current.total_count).toBe(1);
        expect(current.items).toHaveLength(1);
        expect((await messages('whatsapp', channel.id)).total_count).toBe(2);
        return current;
      });
      expect(listed.items).toEqual([
        {
          phone: '+34612345678',
          opted_out_at: Math.floor(clock.now() / 1000) * 1000,
          source: 'keyword',
          scope: 'all',
        },
      ]);
      await post(
        url,
        whatsappNotification(channel.number_id, { messages: [text('34612345678', 'Start')] }),
      ).expect(200);
      await eventually(async () => expect((await optOuts(channel.id)).total_count).toBe(0));
    });

    it('opts numbers out and in through the API, normalised, idempotently', async () => {
      const channel = await whatsapp();
      const base = `/v1/channels/whatsapp/${channel.id}/opt-outs`;
      await t.http().put(`${base}/34612345678`).set(auth).expect(204);
      await t.http().put(`${base}/%2B34612345678`).set(auth).expect(204);
      expect((await optOuts(channel.id)).items).toEqual([
        { phone: '+34612345678', opted_out_at: clock.now(), source: 'api', scope: 'all' },
      ]);
      await t.http().delete(`${base}/+34 612 345 678`).set(auth).expect(204);
      await t.http().delete(`${base}/34612345678`).set(auth).expect(204);
      expect((await optOuts(channel.id)).total_count).toBe(0);
      const bad = await t.http().put(`${base}/12`).set(auth).expect(400);
      expect(bad.body.errors).toEqual([
        { field: 'phone', message: expect.stringContaining('"12"') },
      ]);
    });

    it("answers 404 on another organization's channel, another kind's id, or a malformed id", async () => {
      const channel = await whatsapp();
      const messangerChannel = await messanger();
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      const cases: [string, 'get' | 'put' | 'delete', string][] = [
        [stranger.Authorization, 'get', `/v1/channels/whatsapp/${channel.id}/messages`],
        [stranger.Authorization, 'get', `/v1/channels/messanger/${messangerChannel.id}/messages`],
        [stranger.Authorization, 'get', `/v1/channels/whatsapp/${channel.id}/opt-outs`],
        [stranger.Authorization, 'put', `/v1/channels/whatsapp/${channel.id}/opt-outs/34612345678`],
        [
          stranger.Authorization,
          'delete',
          `/v1/channels/whatsapp/${channel.id}/opt-outs/34612345678`,
        ],
        [auth.Authorization, 'get', `/v1/channels/messanger/${channel.id}/messages`],
        [auth.Authorization, 'get', '/v1/channels/whatsapp/not-a-uuid/messages'],
      ];
      for (const [authorization, method, path] of cases) {
        const res = await t.http()[method](path).set('Authorization', authorization);
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
    });
  });

  describe('under the API rate limit', () => {
    it("does not count Meta's notifications: a busy number is not answered 429", async () => {
      const limited = await startApp({ META_APP_SECRET: SECRET, RATE_LIMIT_PER_MINUTE: '2' });
      try {
        const channel = await givenWhatsappChannel(limited, auth);
        for (let i = 0; i < 5; i++) {
          await givenInboundMessage(limited, channel, SECRET, { body: `m${i}` });
        }
      } finally {
        await limited.close();
      }
    });
  });

  describe('without META_APP_SECRET', () => {
    it('answers 401 to every notification, signed or not, and stores nothing, unless the channel has its own app_secret', async () => {
      const bare = await startApp({});
      try {
        const channel = await givenWhatsappChannel(bare, auth);
        const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
        const notify = (channelId: string, signature = sign(raw)) =>
          bare
            .http()
            .post(`/v1/webhooks/whatsapp/${channelId}`)
            .set('content-type', 'application/json')
            .set('x-hub-signature-256', signature)
            .send(raw);
        const res = await notify(channel.id).expect(401);
        expect(res.body.detail).toMatch(/No META_APP_SECRET/);
        const rows: unknown[] = await bare.app
          .get(DataSource)
          .query('SELECT 1 FROM webhook_inbox WHERE channel_id = $1', [channel.id]);
        expect(rows).toEqual([]);
        // The same words for an id that does not exist: the 401 tells nothing about channels.
        const unknown = await notify(randomUUID()).expect(401);
        expect(unknown.body.detail).toBe(res.body.detail);

        // A channel with its own app secret is verified with it all the same.
        const own = await givenWhatsappChannel(bare, auth, { app_secret: 'its-own-app-secret' });
        const wrong = await notify(own.id).expect(401);
        expect(wrong.body.detail).toBe(res.body.detail);
        await notify(own.id, sign(raw, 'its-own-app-secret')).expect(200);
      } finally {
        await bare.close();
      }
    });
  });
});
