import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { SandboxConversations, SandboxMessage } from '../src/sandbox';
import { launchChromium } from './support/chromium';
import { givenWhatsappChannel, WhatsappChannel } from './support/given';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

/** Listens on loopback: the browser needs a real address. */
async function listen(t: TestApp): Promise<string> {
  const server = t.app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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
      url = await listen(t);
      conversations = t.app.get(SandboxConversations);
      channel = await givenWhatsappChannel(t, bearer(token));
    });
    afterAll(() => t.close());

    const record = (overrides: Partial<SandboxMessage>) =>
      conversations.add({
        id: `wamid.${Math.random().toString(36).slice(2)}`,
        kind: 'whatsapp',
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
});
