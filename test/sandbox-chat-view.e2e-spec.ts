import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { SandboxConversations, SandboxMessage } from '../src/sandbox';
import { launchChromium } from './support/chromium';
import { eventually } from './support/eventually';
import { FakeAgentEndpoint } from './support/fake-agent-endpoint';
import { listenOnLoopback } from './support/listening';
import { givenFollowUp, givenWhatsappChannel, WhatsappChannel } from './support/given';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

/** The page, opened with a token pasted as a newcomer does; its script errors are collected. */
async function openChatView(context: BrowserContext, url: string, token: string) {
  const opened = await pasteToken(context, url, token);
  await opened.page.waitForSelector('#app:not([hidden])');
  return opened;
}

async function pasteToken(context: BrowserContext, url: string, token: string) {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(`${url}/sandbox`);
  await page.fill('#token-input', token);
  await page.click('#token-form button[type=submit]');
  return { page, errors };
}

/** A 1×1 PNG: what a browser decodes into an image. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const openConversation = async (page: Page, channelId: string, client: string) => {
  const channel = page.locator(`.channel[data-channel="${channelId}"]`);
  await channel.locator('.open-client input').fill(client);
  await channel.locator('.open-client button').click();
};

describe('Sandbox chat view in a browser (e2e)', () => {
  let context: BrowserContext;
  let closeBrowser: () => Promise<void>;

  beforeAll(async () => {
    ({ context, close: closeBrowser } = await launchChromium());
  });
  afterAll(() => closeBrowser());

  describe('what the page draws of each message type', () => {
    let t: TestApp;
    let url: string;
    let conversations: SandboxConversations;
    const org = newOrganization();
    const token = tokenFor({ org });
    let channel: WhatsappChannel;

    beforeAll(async () => {
      t = await startApp({ META_SANDBOX: 'true' });
      url = await listenOnLoopback(t);
      conversations = t.app.get(SandboxConversations);
      channel = await givenWhatsappChannel(t, bearer(token));
    });
    afterAll(() => t.close());

    const record = (overrides: Partial<SandboxMessage>) =>
      conversations.add({
        id: `wamid.${Math.random().toString(36).slice(2)}`,
        kind: 'whatsapp',
        channelId: channel.id,
        organizationId: org,
        senderId: channel.number_id,
        client: '34699000001',
        direction: 'to_client',
        type: 'text',
        body: {},
        state: 'accepted',
        at: Date.now(),
        stateAt: {},
        ...overrides,
      });

    it('draws text (escaped), interactive, location, contacts, reactions and failures with Meta’s reason', async () => {
      const hostile = '<img src=x onerror="document.title=\'pwned\'"><script>alert(1)</script>';
      const text = record({
        direction: 'from_client',
        state: 'received',
        body: { from: '34699000001', type: 'text', text: { body: hostile } },
      });
      record({
        type: 'interactive',
        body: {
          type: 'interactive',
          interactive: {
            type: 'button',
            body: { text: 'Still coming on Friday?' },
            action: {
              buttons: [
                { type: 'reply', reply: { id: 'yes', title: 'Yes' } },
                { type: 'reply', reply: { id: 'no', title: 'No' } },
              ],
            },
          },
        },
      });
      record({
        type: 'location',
        body: {
          type: 'location',
          location: { latitude: 40.4168, longitude: -3.7038, name: 'Puerta del Sol' },
        },
      });
      record({
        type: 'contacts',
        body: {
          type: 'contacts',
          contacts: [
            { name: { formatted_name: 'Ana García' }, phones: [{ phone: '+34 612 34 56 78' }] },
          ],
        },
      });
      record({
        direction: 'from_client',
        type: 'reaction',
        state: 'received',
        body: { type: 'reaction', reaction: { message_id: text.id, emoji: '❤️' } },
      });
      record({
        type: 'text',
        body: { type: 'text', text: { body: 'Too late' } },
        state: 'failed',
        error: {
          code: 131047,
          title: 'Re-engagement message',
          message: 'More than 24 hours have passed since the recipient last replied.',
        },
      });

      const { page, errors } = await openChatView(context, url, token);
      await openConversation(page, channel.id, '+34 699 000 001');
      const messages = page.locator('#messages .message');
      await messages.filter({ hasText: 'Too late' }).waitFor();
      await expect(messages.first().locator('.text').textContent()).resolves.toBe(hostile);
      await expect(page.title()).resolves.not.toBe('pwned');
      await expect(page.locator('#messages img').count()).resolves.toBe(0);
      await expect(messages.first().locator('.reaction').textContent()).resolves.toBe('❤️');
      await expect(page.locator('.reply-button').allTextContents()).resolves.toEqual(['Yes', 'No']);
      await expect(page.locator('.location').textContent()).resolves.toContain('Puerta del Sol');
      await expect(page.locator('.contact').textContent()).resolves.toContain('Ana García');
      await expect(page.locator('.failure').textContent()).resolves.toBe(
        '❗ Not delivered — 131047 Re-engagement message: More than 24 hours have passed since the recipient last replied.',
      );
      expect(errors).toEqual([]);
      await page.close();
    });

    it('sends the token for media to agentline’s media route only; another link is a link', async () => {
      const elsewhere = `${url}/v1/channels/whatsapp/${channel.id}/deliveries`;
      record({
        client: '34699000003',
        type: 'image',
        body: { type: 'image', image: { link: elsewhere } },
      });
      const { page, errors } = await openChatView(context, url, token);
      const asked: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/deliveries')) asked.push(request.url());
      });
      await openConversation(page, channel.id, '34699000003');
      const shown = page.locator('#messages .media.image .label a');
      await shown.waitFor();
      await expect(shown.getAttribute('href')).resolves.toBe(elsewhere);
      await expect(shown.getAttribute('rel')).resolves.toBe('noopener noreferrer');
      expect(asked).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    });

    it('moves the ticks as the states change, live', async () => {
      const sent = record({
        client: '34699000002',
        body: { type: 'text', text: { body: 'On its way' } },
      });
      const { page, errors } = await openChatView(context, url, token);
      await openConversation(page, channel.id, '34699000002');
      const ticks = page.locator(`.message[data-id="${sent.id}"] .ticks`);
      await ticks.and(page.locator('[data-state="accepted"]')).waitFor();
      for (const state of ['sent', 'delivered', 'read'] as const) {
        conversations.advance(sent.id, state, Date.now());
        await ticks.and(page.locator(`[data-state="${state}"]`)).waitFor();
      }
      expect(errors).toEqual([]);
      await page.close();
    });

    it('asks for the token again when it is refused', async () => {
      const { page } = await pasteToken(context, url, 'not-a-token');
      await page.locator('#token-error').filter({ hasText: 'refused' }).waitFor();
      await page.waitForSelector('#token-form:not([hidden])');
      await expect(page.locator('#token-error').textContent()).resolves.toMatch(/refused/);
      await page.close();
    });
  });
  describe('the whole loop through the sandbox', () => {
    let t: TestApp;
    let url: string;
    let agent: FakeAgentEndpoint;
    const org = newOrganization();
    const token = tokenFor({ org });
    const auth = bearer(token);
    let channel: WhatsappChannel;

    beforeAll(async () => {
      agent = await FakeAgentEndpoint.start();
      t = await startApp({
        META_SANDBOX: 'true',
        SANDBOX_STATUS_DELAY_MS: '50',
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        AGENT_EVENTS_URL: agent.url,
        AGENT_EVENTS_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
      });
      url = await listenOnLoopback(t);
      channel = await givenWhatsappChannel(t, auth);
    });
    afterAll(async () => {
      await t.close();
      await agent.close();
    });

    it('shows a client reply typed in the page reaching the agent, a follow-up with its ticks, and an image sent now', async () => {
      const { page, errors } = await openChatView(context, url, token);
      await openConversation(page, channel.id, '+34612345678');

      // The client writes in the page's box: the agent's events endpoint gets it.
      await page.fill('#compose-text', 'Hi! Is my order on its way?');
      await page.click('#compose button[type=submit]');
      await page
        .locator('#messages .message.in')
        .filter({ hasText: 'Hi! Is my order on its way?' })
        .waitFor();
      const received = await eventually(async () => {
        const events = agent.events('message.received');
        expect(events).toHaveLength(1);
        return events[0].body;
      });
      expect(received).toMatchObject({
        channel_id: channel.id,
        data: { from: '+34612345678', type: 'text', text: 'Hi! Is my order on its way?' },
      });

      // A follow-up scheduled through the API arrives, and its ticks go to read.
      await givenFollowUp(t, auth, channel.id, {
        frequency: 'once',
        client_phone_numbers: ['+34612345678'],
        title: 'Order 42',
        prompt: 'Hello! {{title}} leaves the warehouse today.',
      });
      const followUp = page
        .locator('#messages .message.out')
        .filter({ hasText: 'Hello! Order 42 leaves the warehouse today.' });
      await followUp.locator('.ticks[data-state="read"]').waitFor();
      // Each state was reached on its way to read (the tick's title lists when).
      const title = await followUp.locator('.ticks').getAttribute('title');
      expect(title).toMatch(/^accepted .+, sent .+, delivered .+, read .+$/);

      // An image sent now shows inline: its bytes fetched with the token from the media route.
      const upload = await t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/media`)
        .set(auth)
        .attach('file', PNG, { filename: 'box.png', contentType: 'image/png' })
        .expect(201);
      await t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/messages`)
        .set(auth)
        .send({
          to: '+34612345678',
          image: { media_id: upload.body.data.media_id, caption: 'Your box' },
        })
        .expect(202);
      const image = page.locator('#messages .message.out .media.image img');
      await image.and(page.locator('img[src^="blob:"]')).waitFor();
      await expect(
        image.evaluate((node) => {
          // An <img>, as the browser has it (no DOM types in this project).
          const img = node as unknown as { decode(): Promise<void>; naturalWidth: number };
          return img.decode().then(() => img.naturalWidth);
        }),
      ).resolves.toBe(1);
      await expect(
        page.locator('#messages .message.out .media.image').textContent(),
      ).resolves.toContain('Your box');
      expect(errors).toEqual([]);
      await page.close();
    });

    it('renders a template follow-up with its parameters, and its quick reply answers as the client', async () => {
      const { page, errors } = await openChatView(context, url, token);
      // Outside the 24-hour window (the client never wrote): the follow-up sends its template.
      await givenFollowUp(t, auth, channel.id, {
        frequency: 'once',
        client_phone_numbers: ['+14155552671'],
        title: 'Dentist',
        prompt: 'See you soon',
        template: {
          name: 'appointment_reminder',
          language: 'en_US',
          parameters: ['Ana', 'Friday 3 July at 10:00'],
        },
      });
      await openConversation(page, channel.id, '+14155552671');
      const template = page.locator('#messages .message.out .template');
      await template.waitFor();
      await expect(template.locator('.text').textContent()).resolves.toBe(
        'Hi Ana, this is a reminder of your appointment on Friday 3 July at 10:00. Reply to this message if you need to change it.',
      );
      await expect(template.locator('.reply-button').allTextContents()).resolves.toEqual([
        'Confirm',
        'Reschedule',
      ]);
      await template.locator('.reply-button', { hasText: 'Confirm' }).click();
      await eventually(async () =>
        expect(
          agent
            .events('message.received')
            .map((event) => event.body.data as { from: string; type: string }),
        ).toContainEqual(expect.objectContaining({ from: '+14155552671', type: 'button' })),
      );
      expect(errors).toEqual([]);
      await page.close();
    });

    it("shows another organization's token nothing of it", async () => {
      const { page, errors } = await openChatView(
        context,
        url,
        tokenFor({ org: newOrganization() }),
      );
      await page.locator('#channels-empty:not([hidden])').waitFor();
      await expect(page.locator('.channel').count()).resolves.toBe(0);
      await expect(page.locator('body').textContent()).resolves.not.toContain('Order 42');
      expect(errors).toEqual([]);
      await page.close();
    });
  });
});
