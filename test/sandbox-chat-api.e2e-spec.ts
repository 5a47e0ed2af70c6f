import { request as httpRequest, IncomingMessage } from 'node:http';
import { SandboxConversations, SandboxMessage } from '../src/sandbox';
import {
  SANDBOX_STREAMS_PER_ORGANIZATION,
  SandboxChatEvents,
} from '../src/sandbox/chat-view/sandbox-chat-events';
import { eventually } from './support/eventually';
import { aWhatsappChannel } from './support/factories';
import { listenOnLoopback } from './support/listening';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

/** Where a message is kept: the channel, its organization and its number. */
const on = (channel: { id: string; number_id: string }, organizationId: string) => ({
  channelId: channel.id,
  organizationId,
  senderId: channel.number_id,
});

/** A message as the sandbox records it; tests state only what differs. */
const aSandboxMessage = (overrides: Partial<SandboxMessage>): SandboxMessage => ({
  id: `wamid.${Math.random().toString(36).slice(2)}`,
  kind: 'whatsapp',
  channelId: '00000000-0000-4000-8000-000000000000',
  organizationId: '00000000-0000-4000-8000-000000000000',
  senderId: '0',
  client: '34612345678',
  direction: 'to_client',
  type: 'text',
  body: { messaging_product: 'whatsapp', to: '34612345678', type: 'text', text: { body: 'Hi' } },
  state: 'accepted',
  at: Date.now(),
  stateAt: {},
  ...overrides,
});

describe('Sandbox chat view: its JSON and its page (e2e)', () => {
  describe('with the sandbox off', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(() => t.close());

    it('answers 404 problems for the page and the JSON', async () => {
      const page = await t.http().get('/sandbox').expect(404);
      expect(page.headers['content-type']).toContain('application/problem+json');
      expect(page.body).toMatchObject({
        code: 'not_found',
        detail: expect.stringMatching(/META_SANDBOX/),
      });
      const auth = bearer(tokenFor());
      await t.http().get('/sandbox/api/channels').set(auth).expect(404);
      await t.http().get('/sandbox/assets/chat.js').expect(404);
      // Without a token too: the sandbox being off comes before the token guard.
      for (const path of [
        '/sandbox/api/channels',
        '/sandbox/api/events',
        '/sandbox/api/conversations/whatsapp/00000000-0000-4000-8000-000000000000/1',
      ]) {
        const answer = await t.http().get(path);
        expect([answer.status, answer.body.code]).toEqual([404, 'not_found']);
      }
    });
  });

  describe('with the sandbox on', () => {
    let t: TestApp;
    let conversations: SandboxConversations;
    const org = newOrganization();
    const auth = bearer(tokenFor({ org }));
    const otherOrg = newOrganization();
    const otherAuth = bearer(tokenFor({ org: otherOrg }));
    let channel: { id: string; number_id: string };
    let otherChannel: { id: string; number_id: string };

    beforeAll(async () => {
      t = await startApp({ META_SANDBOX: 'true' });
      conversations = t.app.get(SandboxConversations);
      const created = await t
        .http()
        .post('/v1/channels/whatsapp')
        .set(auth)
        .send(aWhatsappChannel());
      channel = created.body.data;
      const other = await t
        .http()
        .post('/v1/channels/whatsapp')
        .set(otherAuth)
        .send(aWhatsappChannel());
      otherChannel = other.body.data;
      conversations.add(aSandboxMessage({ ...on(channel, org), client: '34612345678' }));
      conversations.add(
        aSandboxMessage({
          ...on(otherChannel, otherOrg),
          client: '14155552671',
          body: { type: 'text', text: { body: 'secret of the other organization' } },
        }),
      );
    });
    afterAll(() => t.close());

    it('serves the page publicly, with a strict Content-Security-Policy on it and its files', async () => {
      for (const path of ['/sandbox', '/sandbox/assets/chat.js', '/sandbox/assets/chat.css']) {
        const answer = await t.http().get(path).expect(200);
        expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
        expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
        expect(answer.headers['content-security-policy']).not.toContain('unsafe-inline');
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
      }
      const page = await t.http().get('/sandbox');
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.text).toContain('npm run token -- --org');
    });

    it('answers 401 without a token', async () => {
      await t.http().get('/sandbox/api/channels').expect(401);
      await t
        .http()
        .get(`/sandbox/api/conversations/whatsapp/${channel.id}/34612345678`)
        .expect(401);
      await t.http().get('/sandbox/api/events').expect(401);
    });

    it("lists the organization's channels with their clients, never another organization's", async () => {
      const { body } = await t.http().get('/sandbox/api/channels').set(auth).expect(200);
      expect(body.data).toEqual([
        expect.objectContaining({
          kind: 'whatsapp',
          id: channel.id,
          sender_id: channel.number_id,
          clients: [expect.objectContaining({ client: '34612345678' })],
        }),
      ]);
      expect(JSON.stringify(body)).not.toContain('secret of the other organization');
      expect(JSON.stringify(body)).not.toContain(otherChannel.id);
    });

    it("answers a conversation of the organization's channel, and 404 for another organization's", async () => {
      const { body } = await t
        .http()
        .get(`/sandbox/api/conversations/whatsapp/${channel.id}/+34%20612%20345%20678`)
        .set(auth)
        .expect(200);
      expect(body.data).toEqual([
        expect.objectContaining({ direction: 'to_client', type: 'text', state: 'accepted' }),
      ]);
      const other = await t
        .http()
        .get(`/sandbox/api/conversations/whatsapp/${otherChannel.id}/14155552671`)
        .set(auth)
        .expect(404);
      expect(other.body.code).toBe('not_found');
      expect(JSON.stringify(other.body)).not.toContain('secret');
      await t.http().get(`/sandbox/api/conversations/sms/${channel.id}/1`).set(auth).expect(404);
    });

    it("renders a template with the sandbox's catalog, or as its name and parameters when no catalog has it", async () => {
      const templateSent = (name: string, parameters: Record<string, string>[]) =>
        aSandboxMessage({
          ...on(channel, org),
          client: '34600000001',
          type: 'template',
          body: {
            type: 'template',
            template: {
              name,
              language: { code: 'en_US' },
              components: [{ type: 'body', parameters }],
            },
          },
        });
      conversations.add(
        templateSent('spring_sale', [
          { type: 'text', parameter_name: 'first_name', text: 'Ana' },
          { type: 'text', parameter_name: 'discount', text: '30%' },
        ]),
      );
      conversations.add(templateSent('not_in_any_catalog', [{ type: 'text', text: 'Ana' }]));
      const { body } = await t
        .http()
        .get(`/sandbox/api/conversations/whatsapp/${channel.id}/34600000001`)
        .set(auth)
        .expect(200);
      expect(body.data.map((message: { template: unknown }) => message.template)).toEqual([
        expect.objectContaining({
          name: 'spring_sale',
          found: true,
          body: 'Hi Ana, our spring sale has started: 30% off everything until Sunday.',
          footer: 'Reply STOP to opt out',
          buttons: [{ type: 'url', text: 'Shop the sale', url: 'https://shop.example.com/sale' }],
        }),
        expect.objectContaining({
          name: 'not_in_any_catalog',
          found: false,
          parameters: ['Ana'],
        }),
      ]);
    });

    it('refuses an eleventh stream of one organization with its own quota in RateLimit-Policy and RateLimit', async () => {
      const { port } = new URL(await listenOnLoopback(t));
      const streamAuth = bearer(tokenFor({ org: newOrganization() }));
      const requests = Array.from({ length: SANDBOX_STREAMS_PER_ORGANIZATION }, () => {
        const request = httpRequest({
          host: '127.0.0.1',
          port,
          path: '/sandbox/api/events',
          headers: streamAuth,
        });
        const opened = new Promise<void>((resolve, reject) => {
          request.on('response', (response) => {
            expect(response.statusCode).toBe(200);
            resolve();
          });
          request.on('error', reject);
        });
        request.end();
        return { request, opened };
      });
      try {
        await Promise.all(requests.map(({ opened }) => opened));
        const refused = await t.http().get('/sandbox/api/events').set(streamAuth).expect(429);
        expect(refused.headers['retry-after']).toBe('30');
        expect(refused.headers['ratelimit-policy']).toMatch(
          new RegExp(
            `^"organization";q=\\d+;w=60, "sandbox-chat-streams";q=${SANDBOX_STREAMS_PER_ORGANIZATION};qu="concurrent-requests"$`,
          ),
        );
        expect(refused.headers.ratelimit).toMatch(/, "sandbox-chat-streams";r=0$/);
      } finally {
        for (const { request } of requests) request.destroy();
      }
    });

    it("streams changes to the organization's conversations only", async () => {
      const { port } = new URL(await listenOnLoopback(t));
      const open = (headers: Record<string, string>) =>
        new Promise<{ response: IncomingMessage; received: () => string }>((resolve, reject) => {
          let text = '';
          httpRequest(
            { host: '127.0.0.1', port, path: '/sandbox/api/events', headers },
            (response) => {
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => (text += chunk));
              resolve({ response, received: () => text });
            },
          )
            .on('error', reject)
            .end();
        });
      const mine = await open(auth);
      const theirs = await open(otherAuth);
      expect(mine.response.statusCode).toBe(200);
      expect(mine.response.headers['content-type']).toContain('text/event-stream');
      try {
        const message = conversations.add(
          aSandboxMessage({ ...on(channel, org), client: '34600000002' }),
        );
        await eventually(async () =>
          expect(mine.received()).toContain(
            `data: ${JSON.stringify({ kind: 'whatsapp', channel_id: channel.id, client: '34600000002', message_id: message.id })}`,
          ),
        );
        // The other organization's stream got nothing of it (its own channel's change arrives).
        const theirMessage = conversations.add(
          aSandboxMessage({ ...on(otherChannel, otherOrg), client: '1999' }),
        );
        await eventually(async () => expect(theirs.received()).toContain(theirMessage.id));
        // Another organization's channel on this channel's number (a number bound again after a
        // deletion): its traffic is theirs, not this stream's.
        const onMyNumber = conversations.add(
          aSandboxMessage({ ...on(otherChannel, otherOrg), senderId: channel.number_id }),
        );
        await eventually(async () => expect(theirs.received()).toContain(onMyNumber.id));
        expect(mine.received()).not.toContain(onMyNumber.id);
        // Their own channel's events only (comments aside).
        const events = (stream: string) => stream.match(/^data: /gm) ?? [];
        expect(events(theirs.received())).toHaveLength(2);
        expect(theirs.received()).not.toContain(message.id);
        expect(theirs.received()).not.toContain(channel.id);
        expect(mine.received()).not.toContain(theirMessage.id);
      } finally {
        mine.response.destroy();
        theirs.response.destroy();
      }
    });

    it('ends streams at shutdown cleanly: a change after the end is not written, a stream opened then ends at once, and the process lives on', async () => {
      const { port } = new URL(await listenOnLoopback(t));
      let text = '';
      const ended = new Promise<void>((resolve, reject) => {
        httpRequest(
          { host: '127.0.0.1', port, path: '/sandbox/api/events', headers: auth },
          (response) => {
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', resolve);
          },
        )
          .on('error', reject)
          .end();
      });
      await eventually(async () => expect(text).toContain(': open'));
      // Once a change arrives, the stream knows the organization's channels.
      const first = conversations.add(
        aSandboxMessage({ ...on(channel, org), client: '34600000008' }),
      );
      await eventually(async () => expect(text).toContain(first.id));
      t.app.get(SandboxChatEvents).onModuleDestroy();
      // In the gap before the response closes, another change to the organization's conversations.
      const late = conversations.add(
        aSandboxMessage({ ...on(channel, org), client: '34600000009' }),
      );
      await ended;
      expect(text).not.toContain(late.id);
      await t.http().get('/health/live').expect(200);

      // A page reconnecting during shutdown: its stream ends at once (held open, it would keep
      // the HTTP server, and the process, from closing).
      const reopened = await new Promise<IncomingMessage>((resolve, reject) => {
        httpRequest(
          { host: '127.0.0.1', port, path: '/sandbox/api/events', headers: auth },
          resolve,
        )
          .on('error', reject)
          .end();
      });
      expect(reopened.statusCode).toBe(200);
      await new Promise((resolve) => reopened.on('end', resolve).resume());
    });
  });
});
