import { eventually } from './support/eventually';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import {
  givenInboundMessage,
  givenMessangerChannel,
  givenMessangerNotification,
  givenWhatsappChannel,
  WhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import { toolRequests } from './support/tool-requests';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const SECRET = 'meta-app-secret-rich-sends';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CLIENT = '34612345678';
const INBOUND = 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdCRDE2NEQ5RjQ2QzZBQjY3NQA=';

interface Delivery {
  id: string;
  status: string;
  attempts: number;
  message_type: string;
  last_error: { code: string; message: string } | null;
}

const BUTTONS = {
  type: 'button',
  header: { type: 'image', image: { id: '1013859600285441' } },
  body: { text: 'The blue kettle is back. Which size?' },
  footer: { text: 'Prices include VAT' },
  action: {
    buttons: [
      { type: 'reply', reply: { id: 'size_s', title: 'Small' } },
      { type: 'reply', reply: { id: 'size_l', title: 'Large' } },
    ],
  },
};
const LIST = {
  type: 'list',
  header: { type: 'text', text: 'Appointments' },
  body: { text: 'Pick a time that suits you.' },
  action: {
    button: 'See times',
    sections: [
      { title: 'Monday', rows: [{ id: 'mon_10', title: '10:00', description: 'Dr. Ruiz' }] },
      { title: 'Tuesday', rows: [{ id: 'tue_16', title: '16:00' }] },
    ],
  },
};
const CTA = {
  type: 'cta_url',
  body: { text: 'Your order is on its way.' },
  action: {
    name: 'cta_url',
    parameters: { display_text: 'Track my order', url: 'https://shop.example.com/orders/2041' },
  },
};
const CONTACT = {
  name: { formatted_name: 'Ana García', first_name: 'Ana' },
  phones: [{ phone: '+34 612 345 678', type: 'WORK', wa_id: '34612345678' }],
  emails: [{ email: 'ana@example.com', type: 'WORK' }],
  org: { company: 'Agentline' },
};

/**
 * Rich sends now (issue 20): every WhatsApp type and Messenger shape goes to Graph as Meta
 * documents it (the fake refuses anything else), Meta's limits are refused before any call with
 * the field named, a retry sends the same content, and a Messenger tag writes outside the window.
 */
describe('Rich sends now (e2e)', () => {
  let graph: FakeGraphApi;
  let clock: ManualClock;
  let t: TestApp;
  let auth: Record<string, string>;
  let wa: WhatsappChannel;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        GRAPH_API_TIMEOUT_MS: '1500',
        META_APP_SECRET: SECRET,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });
  beforeEach(async () => {
    graph.reset();
    auth = bearer(tokenFor({ org: newOrganization() }));
    wa = await givenWhatsappChannel(t, auth);
    await givenInboundMessage(t, wa, SECRET, { from: CLIENT, id: INBOUND, at: clock.now() });
  });

  const send = (kind: string, id: string, body: Record<string, unknown>) =>
    t.http().post(`/v1/channels/${kind}/${id}/messages`).set(auth).send(body);
  const deliveries = async (kind: string, id: string): Promise<Delivery[]> =>
    (await t.http().get(`/v1/channels/${kind}/${id}/deliveries`).set(auth).expect(200)).body.data
      .items;
  const fields = (res: { body: { errors?: { field: string }[] } }) =>
    (res.body.errors ?? []).map((error) => error.field);
  const { attach, run, execute } = toolRequests(
    () => t,
    () => auth,
  );
  /** A send tool's parameters as an OpenAI strict-mode model fills them: every one, unused ones null. */
  const strictInput = async (name: string, given: Record<string, unknown>) => {
    const spec = (
      await t.http().get('/v1/tools/specs?format=openai&limit=200').set(auth).expect(200)
    ).body.data.items.find((item: { qualified_name: string }) => item.qualified_name === name);
    const schema = spec.formatted_schema.function;
    expect(schema.strict).toBe(true);
    expect(schema.parameters.additionalProperties).toBe(false);
    expect(schema.parameters.required).toEqual(Object.keys(schema.parameters.properties));
    return Object.fromEntries(
      Object.keys(schema.parameters.properties).map((key) => [key, given[key] ?? null]),
    );
  };
  const runTool = async (name: string, given: Record<string, unknown>) =>
    run((await attach(name)).id, await strictInput(name, given));

  describe('WhatsApp', () => {
    const common = { messaging_product: 'whatsapp', recipient_type: 'individual', to: CLIENT };

    it.each([
      [
        'an image by media id, with a caption',
        { image: { media_id: '1013859600285441', caption: 'Back in stock' } },
        { type: 'image', image: { id: '1013859600285441', caption: 'Back in stock' } },
      ],
      [
        'a video by link',
        { video: { link: 'https://cdn.example.com/demo.mp4' } },
        { type: 'video', video: { link: 'https://cdn.example.com/demo.mp4' } },
      ],
      [
        'an audio by media id',
        { audio: { media_id: '2222' } },
        { type: 'audio', audio: { id: '2222' } },
      ],
      [
        'a document with a caption and filename',
        {
          document: {
            link: 'https://cdn.example.com/i.pdf',
            caption: 'Your invoice',
            filename: 'invoice-2041.pdf',
          },
        },
        {
          type: 'document',
          document: {
            link: 'https://cdn.example.com/i.pdf',
            caption: 'Your invoice',
            filename: 'invoice-2041.pdf',
          },
        },
      ],
      [
        'a sticker',
        { sticker: { media_id: '3333' } },
        { type: 'sticker', sticker: { id: '3333' } },
      ],
      [
        'a location',
        {
          location: { latitude: 40.4168, longitude: -3.7038, name: 'Store', address: 'Gran Vía 1' },
        },
        {
          type: 'location',
          location: { latitude: 40.4168, longitude: -3.7038, name: 'Store', address: 'Gran Vía 1' },
        },
      ],
      ['contacts', { contacts: [CONTACT] }, { type: 'contacts', contacts: [CONTACT] }],
      ['reply buttons', { interactive: BUTTONS }, { type: 'interactive', interactive: BUTTONS }],
      ['a list', { interactive: LIST }, { type: 'interactive', interactive: LIST }],
      ['a CTA URL button', { interactive: CTA }, { type: 'interactive', interactive: CTA }],
      [
        'a reaction',
        { reaction: { message_id: INBOUND, emoji: '👍' } },
        { type: 'reaction', reaction: { message_id: INBOUND, emoji: '👍' } },
      ],
      [
        'text quoting the client',
        { text: 'Yes, it is!', reply_to: INBOUND },
        {
          context: { message_id: INBOUND },
          type: 'text',
          text: { body: 'Yes, it is!', preview_url: false },
        },
      ],
      [
        'an image quoting the client',
        { image: { link: 'https://cdn.example.com/a.png' }, reply_to: INBOUND },
        {
          context: { message_id: INBOUND },
          type: 'image',
          image: { link: 'https://cdn.example.com/a.png' },
        },
      ],
    ])('sends %s in Meta’s shape', async (_name, body, expected) => {
      const res = await send('whatsapp', wa.id, { to: `+${CLIENT}`, ...body }).expect(202);
      const type = (expected as { type: string }).type;
      expect(res.body.data).toMatchObject({ status: 'pending', message_type: type });
      const [message] = await graph.waitForMessages(1);
      expect(message.payload).toEqual({ ...common, ...expected });
      await eventually(async () =>
        expect((await deliveries('whatsapp', wa.id))[0]).toMatchObject({
          status: 'sent',
          message_type: type,
        }),
      );
    });

    const longRows = Array.from({ length: 11 }, (_, i) => ({ id: `r${i}`, title: `Row ${i}` }));
    it.each([
      [
        'caption over 1024',
        { image: { media_id: '1', caption: 'x'.repeat(1025) } },
        'image.caption',
      ],
      ['caption on audio', { audio: { media_id: '1', caption: 'hi' } }, 'audio.caption'],
      ['caption on a sticker', { sticker: { media_id: '1', caption: 'hi' } }, 'sticker.caption'],
      ['filename on an image', { image: { media_id: '1', filename: 'a.png' } }, 'image.filename'],
      [
        'both media_id and link',
        { image: { media_id: '1', link: 'https://x.example/a.png' } },
        'image.media_id',
      ],
      ['neither media_id nor link', { video: { caption: 'hi' } }, 'video.media_id'],
      ['a media id that is not one', { image: { media_id: 'abc' } }, 'image.media_id'],
      ['a plain http link', { image: { link: 'http://x.example/a.png' } }, 'image.link'],
      [
        'a latitude out of range',
        { location: { latitude: 91, longitude: 0 } },
        'location.latitude',
      ],
      [
        'a contact with formatted_name alone (Meta asks one more part of the name)',
        { contacts: [{ name: { formatted_name: 'Ana García' } }] },
        'contacts.0.name',
      ],
      [
        'a contact without formatted_name',
        { contacts: [{ name: { first_name: 'A' } }] },
        'contacts.0.name.formatted_name',
      ],
      [
        'a button body over 1024',
        { interactive: { ...BUTTONS, body: { text: 'x'.repeat(1025) } } },
        'interactive.body.text',
      ],
      [
        'a list body over 4096',
        { interactive: { ...LIST, body: { text: 'x'.repeat(4097) } } },
        'interactive.body.text',
      ],
      [
        'a footer over 60',
        { interactive: { ...BUTTONS, footer: { text: 'x'.repeat(61) } } },
        'interactive.footer.text',
      ],
      [
        'a header over 60',
        { interactive: { ...CTA, header: { type: 'text', text: 'x'.repeat(61) } } },
        'interactive.header.text',
      ],
      [
        'an image header on a list',
        { interactive: { ...LIST, header: BUTTONS.header } },
        'interactive.header.type',
      ],
      [
        'four buttons',
        {
          interactive: {
            ...BUTTONS,
            action: {
              buttons: ['a', 'b', 'c', 'd'].map((id) => ({
                type: 'reply',
                reply: { id, title: id },
              })),
            },
          },
        },
        'interactive.action.buttons',
      ],
      [
        'no buttons',
        { interactive: { ...BUTTONS, action: { buttons: [] } } },
        'interactive.action.buttons',
      ],
      [
        'a button title over 20',
        {
          interactive: {
            ...BUTTONS,
            action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'x'.repeat(21) } }] },
          },
        },
        'interactive.action.buttons.0.reply.title',
      ],
      [
        'two buttons with one id',
        {
          interactive: {
            ...BUTTONS,
            action: {
              buttons: [
                { type: 'reply', reply: { id: 'same', title: 'One' } },
                { type: 'reply', reply: { id: 'same', title: 'Two' } },
              ],
            },
          },
        },
        'interactive.action.buttons.1.reply.id',
      ],
      [
        'a list button text over 20',
        { interactive: { ...LIST, action: { ...LIST.action, button: 'x'.repeat(21) } } },
        'interactive.action.button',
      ],
      [
        'eleven sections',
        {
          interactive: {
            ...LIST,
            action: {
              button: 'See',
              sections: longRows.map((row) => ({ title: row.id, rows: [row] })),
            },
          },
        },
        'interactive.action.sections',
      ],
      [
        'eleven rows in all',
        {
          interactive: {
            ...LIST,
            action: {
              button: 'See',
              sections: [
                { title: 'A', rows: longRows.slice(0, 6) },
                { title: 'B', rows: longRows.slice(6) },
              ],
            },
          },
        },
        'interactive.action.sections',
      ],
      [
        'a row title over 24',
        {
          interactive: {
            ...LIST,
            action: { button: 'See', sections: [{ rows: [{ id: 'a', title: 'x'.repeat(25) }] }] },
          },
        },
        'interactive.action.sections.0.rows.0.title',
      ],
      [
        'a row description over 72',
        {
          interactive: {
            ...LIST,
            action: {
              button: 'See',
              sections: [{ rows: [{ id: 'a', title: 'A', description: 'x'.repeat(73) }] }],
            },
          },
        },
        'interactive.action.sections.0.rows.0.description',
      ],
      [
        'an untitled section',
        {
          interactive: {
            ...LIST,
            action: {
              button: 'See',
              sections: [
                { rows: [{ id: 'a', title: 'A' }] },
                { title: 'B', rows: [{ id: 'b', title: 'B' }] },
              ],
            },
          },
        },
        'interactive.action.sections.0.title',
      ],
      [
        'a cta display_text over 20',
        {
          interactive: {
            ...CTA,
            action: {
              name: 'cta_url',
              parameters: { display_text: 'x'.repeat(21), url: 'https://x.example' },
            },
          },
        },
        'interactive.action.parameters.display_text',
      ],
      [
        'a cta url that is not https',
        {
          interactive: {
            ...CTA,
            action: { name: 'cta_url', parameters: { display_text: 'Go', url: 'ftp://x.example' } },
          },
        },
        'interactive.action.parameters.url',
      ],
      [
        'buttons on a list',
        { interactive: { ...LIST, action: { ...LIST.action, buttons: BUTTONS.action.buttons } } },
        'interactive.action.buttons',
      ],
      [
        'a reaction that is not an emoji',
        { reaction: { message_id: INBOUND, emoji: 'ok' } },
        'reaction.emoji',
      ],
      [
        'a reaction to no message id',
        { reaction: { message_id: '123', emoji: '👍' } },
        'reaction.message_id',
      ],
      ['reply_to that is no message id', { text: 'Hi', reply_to: 'nope' }, 'reply_to'],
      [
        'reply_to on a reaction',
        { reaction: { message_id: INBOUND, emoji: '👍' }, reply_to: INBOUND },
        'reply_to',
      ],
      [
        'reply_to on a template',
        {
          template: { name: 'order_update', language: 'en_US', parameters: [] },
          reply_to: INBOUND,
        },
        'reply_to',
      ],
      ['an image and text', { text: 'Hi', image: { media_id: '1' } }, 'image'],
      [
        'a location and contacts',
        { location: { latitude: 1, longitude: 1 }, contacts: [CONTACT] },
        'contacts',
      ],
      ['nothing to send', {}, 'text'],
    ])('refuses %s (400 naming the field), before any call', async (_name, body, field) => {
      const res = await send('whatsapp', wa.id, { to: `+${CLIENT}`, ...body }).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(fields(res)).toContain(field);
      expect(graph.requests).toBe(0);
    });

    it('sends the same content again on a retry', async () => {
      graph.enqueue(graphErrorReply(500, 1, 'An unknown error occurred'));
      await send('whatsapp', wa.id, { to: CLIENT, interactive: LIST, reply_to: INBOUND }).expect(
        202,
      );
      await eventually(async () =>
        expect((await deliveries('whatsapp', wa.id))[0]).toMatchObject({
          status: 'pending',
          attempts: 1,
          last_error: { code: '1' },
        }),
      );
      clock.advance(10 * 60_000);
      const [message] = await graph.waitForMessages(1);
      expect(message.payload).toEqual({
        ...common,
        context: { message_id: INBOUND },
        type: 'interactive',
        interactive: LIST,
      });
      await eventually(async () =>
        expect((await deliveries('whatsapp', wa.id))[0]).toMatchObject({
          status: 'sent',
          attempts: 2,
          message_type: 'interactive',
        }),
      );
    });

    it("answers 404 for another organization's channel, before any call", async () => {
      const theirs = await givenWhatsappChannel(t, bearer(tokenFor({ org: newOrganization() })));
      const res = await send('whatsapp', theirs.id, { to: CLIENT, interactive: CTA }).expect(404);
      expect(res.body.code).toBe('not_found');
      expect(graph.requests).toBe(0);
    });

    it('fails a delivery whose file Meta cannot fetch (131053), and retries a 429', async () => {
      graph.enqueue(
        { status: 429, body: {}, headers: { 'Retry-After': '1' } },
        graphErrorReply(400, 131053, 'Media upload error'),
      );
      await send('whatsapp', wa.id, {
        to: CLIENT,
        video: { link: 'https://cdn.example.com/huge.mp4' },
      }).expect(202);
      await eventually(async () =>
        expect((await deliveries('whatsapp', wa.id))[0]).toMatchObject({
          status: 'pending',
          last_error: { code: 'http_429' },
        }),
      );
      clock.advance(10 * 60_000);
      await eventually(async () =>
        expect((await deliveries('whatsapp', wa.id))[0]).toMatchObject({
          status: 'failed',
          attempts: 2,
          message_type: 'video',
          last_error: { code: '131053' },
        }),
      );
    });

    it('fails a rich message Meta refuses outside the 24-hour window (131047), as text', async () => {
      graph.enqueue(graphErrorReply(400, 131047, 'Re-engagement message'));
      await send('whatsapp', wa.id, { to: CLIENT, image: { media_id: '1' } }).expect(202);
      await eventually(async () =>
        expect((await deliveries('whatsapp', wa.id))[0]).toMatchObject({
          status: 'failed',
          attempts: 1,
          last_error: { code: '131047' },
        }),
      );
      expect(graph.requests).toBe(1);
    });

    it('Agentline.SendWhatsappMessage sends rich messages from flat, strict-mode parameters', async () => {
      const buttons = await runTool('Agentline.SendWhatsappMessage', {
        channel_id: wa.id,
        to: `+${CLIENT}`,
        text: 'Which size?',
        buttons: ['Small', 'Large'],
        header_text: 'Blue kettle',
        reply_to: INBOUND,
      });
      expect(buttons).toMatchObject({
        status: 'succeeded',
        output: { value: { status: 'pending', message_type: 'interactive' } },
      });
      const [first] = await graph.waitForMessages(1);
      expect(first.payload).toEqual({
        ...common,
        context: { message_id: INBOUND },
        type: 'interactive',
        interactive: {
          type: 'button',
          header: { type: 'text', text: 'Blue kettle' },
          body: { text: 'Which size?' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: 'Small', title: 'Small' } },
              { type: 'reply', reply: { id: 'Large', title: 'Large' } },
            ],
          },
        },
      });
      for (const [given, expected] of [
        [
          {
            media_type: 'document',
            media_link: 'https://cdn.example.com/i.pdf',
            filename: 'i.pdf',
          },
          {
            type: 'document',
            document: { link: 'https://cdn.example.com/i.pdf', filename: 'i.pdf' },
          },
        ],
        [
          { latitude: 40.4, longitude: -3.7, location_name: 'Store' },
          { type: 'location', location: { latitude: 40.4, longitude: -3.7, name: 'Store' } },
        ],
        [
          { text: 'Pick a time', list_button: 'Times', list_rows: ['10:00', '16:00'] },
          {
            type: 'interactive',
            interactive: {
              type: 'list',
              body: { text: 'Pick a time' },
              action: {
                button: 'Times',
                sections: [
                  {
                    title: 'Times',
                    rows: [
                      { id: '10:00', title: '10:00' },
                      { id: '16:00', title: '16:00' },
                    ],
                  },
                ],
              },
            },
          },
        ],
        [
          { reaction_message_id: INBOUND, reaction_emoji: '❤️' },
          { type: 'reaction', reaction: { message_id: INBOUND, emoji: '❤️' } },
        ],
        [
          { contact_name: 'Ana García', contact_phone: '+34 612 345 678' },
          {
            type: 'contacts',
            contacts: [
              {
                name: { formatted_name: 'Ana García', first_name: 'Ana', last_name: 'García' },
                phones: [{ phone: '+34 612 345 678' }],
              },
            ],
          },
        ],
      ] as const) {
        graph.reset();
        const result = await runTool('Agentline.SendWhatsappMessage', {
          channel_id: wa.id,
          to: CLIENT,
          ...given,
        });
        expect(result.status).toBe('succeeded');
        const [message] = await graph.waitForMessages(1);
        expect(message.payload).toEqual({ ...common, ...expected });
      }
    });

    it('Agentline.SendWhatsappMessage refuses what the API refuses, naming the field', async () => {
      for (const [given, error] of [
        [
          { text: 'Pick', buttons: ['Same', 'Same'] },
          /interactive\.action\.buttons\.1\.reply\.id: must be unique/,
        ],
        [{ buttons: ['A'] }, /text is required/],
        [{ text: 'Pick', buttons: ['A'], cta_url: 'https://x.example' }, /one at a time/],
        [{ caption: 'Hi' }, /caption goes with media_type/],
        [{ media_type: 'audio', media_id: '1', caption: 'Hi' }, /audio\.caption/],
      ] as const) {
        const result = await runTool('Agentline.SendWhatsappMessage', {
          channel_id: wa.id,
          to: CLIENT,
          ...given,
        });
        expect(result.status).toBe('failed');
        expect(result.output.error).toMatch(error);
      }
      // The published schema's bounds are enforced before the tool runs.
      const tool = await attach('Agentline.SendWhatsappMessage');
      const input = await strictInput('Agentline.SendWhatsappMessage', {
        channel_id: wa.id,
        to: CLIENT,
        text: 'Pick',
        buttons: ['A', 'B', 'C', 'D'],
      });
      const tooMany = await execute(tool.id, input).expect(400);
      expect(JSON.stringify(tooMany.body)).toContain('buttons');
      expect(graph.requests).toBe(0);
    });

    it('the fake refuses what Meta refuses', async () => {
      const post = (body: object) =>
        fetch(`${graph.url}/${wa.number_id}/messages`, {
          method: 'POST',
          headers: { authorization: 'Bearer EAAG', 'content-type': 'application/json' },
          body: JSON.stringify({ ...common, ...body }),
        });
      for (const body of [
        { type: 'audio', audio: { id: '1', caption: 'no' } },
        { type: 'image', image: { id: '1', link: 'https://x.example/a.png' } },
        { type: 'interactive', interactive: { ...BUTTONS, action: { buttons: [] } } },
        { type: 'interactive', interactive: { ...LIST, header: BUTTONS.header } },
        { type: 'reaction', reaction: { emoji: '👍' } },
        { type: 'text', text: { body: 'hi' }, context: {} },
        { type: 'location', location: { latitude: 1 } },
      ]) {
        const res = await post(body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { code: number } }).error.code).toBe(100);
      }
      expect(graph.messages).toHaveLength(0);
    });
  });

  describe('Messenger', () => {
    const PSID = '6543210987';
    const fbPayload = (body: object) => ({ recipient: { id: PSID }, ...body });
    let fb: Awaited<ReturnType<typeof givenMessangerChannel>>;

    const personWrote = async (at: number) => {
      await givenMessangerNotification(t, fb, SECRET, PSID, [
        { timestamp: at, message: { mid: `m_${at}`, text: 'Hello?' } },
      ]);
      await eventually(async () => {
        const res = await t.http().get(`/v1/channels/messanger/${fb.id}/messages`).set(auth);
        expect(res.body.data.total_count).toBeGreaterThan(0);
      });
    };

    beforeEach(async () => {
      fb = await givenMessangerChannel(t, auth);
    });

    it.each([
      [
        'quick replies on a text',
        {
          text: 'Pick a colour:',
          quick_replies: [
            { content_type: 'text', title: 'Blue', payload: 'COLOR_BLUE' },
            { content_type: 'user_email' },
          ],
        },
        {
          messaging_type: 'RESPONSE',
          message: {
            text: 'Pick a colour:',
            quick_replies: [
              { content_type: 'text', title: 'Blue', payload: 'COLOR_BLUE' },
              { content_type: 'user_email' },
            ],
          },
        },
        'text',
      ],
      [
        'an image by URL, kept for reuse',
        { attachment: { type: 'image', url: 'https://cdn.example.com/k.jpg', is_reusable: true } },
        {
          messaging_type: 'RESPONSE',
          message: {
            attachment: {
              type: 'image',
              payload: { url: 'https://cdn.example.com/k.jpg', is_reusable: true },
            },
          },
        },
        'attachment',
      ],
      [
        'a file by attachment id',
        { attachment: { type: 'file', attachment_id: '1857777774821032' } },
        {
          messaging_type: 'RESPONSE',
          message: { attachment: { type: 'file', payload: { attachment_id: '1857777774821032' } } },
        },
        'attachment',
      ],
    ])('sends %s in Meta’s shape', async (_name, body, expected, type) => {
      await personWrote(clock.now() - HOUR);
      const res = await send('messanger', fb.id, { to: PSID, ...body }).expect(202);
      expect(res.body.data.message_type).toBe(type);
      const [message] = await graph.waitForMessages(1);
      expect(message.payload).toEqual(fbPayload(expected));
    });

    it('writes outside the 24-hour window with a tag, as MESSAGE_TAG', async () => {
      await personWrote(clock.now() - 3 * DAY);
      const untagged = await send('messanger', fb.id, { to: PSID, text: 'Update' }).expect(422);
      expect(untagged.body.code).toBe('outside_messaging_window');
      await send('messanger', fb.id, {
        to: PSID,
        text: 'Your order has shipped.',
        tag: 'POST_PURCHASE_UPDATE',
      }).expect(202);
      await send('messanger', fb.id, {
        to: PSID,
        text: 'An agent here: how can I help?',
        tag: 'HUMAN_AGENT',
      }).expect(202);
      const messages = await graph.waitForMessages(2);
      expect(messages.map((m) => m.payload)).toEqual(
        expect.arrayContaining([
          fbPayload({
            messaging_type: 'MESSAGE_TAG',
            tag: 'POST_PURCHASE_UPDATE',
            message: { text: 'Your order has shipped.' },
          }),
          fbPayload({
            messaging_type: 'MESSAGE_TAG',
            tag: 'HUMAN_AGENT',
            message: { text: 'An agent here: how can I help?' },
          }),
        ]),
      );
    });

    it('Agentline.SendMessangerMessage sends quick replies, attachments and tags', async () => {
      await personWrote(clock.now() - 2 * DAY);
      const tagged = await runTool('Agentline.SendMessangerMessage', {
        channel_id: fb.id,
        to: PSID,
        text: 'Did it arrive?',
        quick_replies: ['Yes', 'No'],
        tag: 'POST_PURCHASE_UPDATE',
      });
      expect(tagged).toMatchObject({
        status: 'succeeded',
        output: { value: { message_type: 'text' } },
      });
      const [first] = await graph.waitForMessages(1);
      expect(first.payload).toEqual(
        fbPayload({
          messaging_type: 'MESSAGE_TAG',
          tag: 'POST_PURCHASE_UPDATE',
          message: {
            text: 'Did it arrive?',
            quick_replies: [
              { content_type: 'text', title: 'Yes', payload: 'Yes' },
              { content_type: 'text', title: 'No', payload: 'No' },
            ],
          },
        }),
      );
      graph.reset();
      await personWrote(clock.now());
      const file = await runTool('Agentline.SendMessangerMessage', {
        channel_id: fb.id,
        to: PSID,
        attachment_type: 'file',
        attachment_url: 'https://cdn.example.com/receipt.pdf',
      });
      expect(file.output.value).toMatchObject({ message_type: 'attachment' });
      const [second] = await graph.waitForMessages(1);
      expect(second.payload).toEqual(
        fbPayload({
          messaging_type: 'RESPONSE',
          message: {
            attachment: { type: 'file', payload: { url: 'https://cdn.example.com/receipt.pdf' } },
          },
        }),
      );
      const untagged = await runTool('Agentline.SendMessangerMessage', {
        channel_id: fb.id,
        to: '1111111111',
        text: 'Hello?',
      });
      expect(untagged.output.error).toContain('24 hours');
    });

    it('refuses HUMAN_AGENT more than 7 days after the person wrote, and unknown tags', async () => {
      await personWrote(clock.now() - 8 * DAY);
      const late = await send('messanger', fb.id, {
        to: PSID,
        text: 'Still there?',
        tag: 'HUMAN_AGENT',
      }).expect(422);
      expect(late.body).toMatchObject({ code: 'outside_messaging_window' });
      expect(late.body.detail).toContain('7 days');
      for (const tag of [
        'CONFIRMED_EVENT_REMINDER',
        'human_agent',
        'NON_PROMOTIONAL_SUBSCRIPTION',
      ]) {
        const res = await send('messanger', fb.id, { to: PSID, text: 'x', tag }).expect(400);
        expect(fields(res)).toContain('tag');
      }
      expect(graph.requests).toBe(0);
    });

    const reply = { content_type: 'text', title: 'Blue', payload: 'BLUE' };
    it.each([
      [
        'fourteen quick replies',
        { text: 'Pick', quick_replies: Array(14).fill(reply) },
        'quick_replies',
      ],
      [
        'a quick reply title over 20',
        { text: 'Pick', quick_replies: [{ ...reply, title: 'x'.repeat(21) }] },
        'quick_replies.0.title',
      ],
      [
        'a quick reply payload over 1000',
        { text: 'Pick', quick_replies: [{ ...reply, payload: 'x'.repeat(1001) }] },
        'quick_replies.0.payload',
      ],
      [
        'a text quick reply without payload',
        { text: 'Pick', quick_replies: [{ content_type: 'text', title: 'Blue' }] },
        'quick_replies.0.payload',
      ],
      [
        'a title on an email quick reply',
        { text: 'Pick', quick_replies: [{ content_type: 'user_email', title: 'Mail' }] },
        'quick_replies.0.title',
      ],
      [
        'an unknown content_type',
        { text: 'Pick', quick_replies: [{ ...reply, content_type: 'location' }] },
        'quick_replies.0.content_type',
      ],
      [
        'quick replies on an attachment',
        { attachment: { type: 'image', url: 'https://x.example/a.png' }, quick_replies: [reply] },
        'quick_replies',
      ],
      [
        'text and an attachment',
        { text: 'Hi', attachment: { type: 'image', url: 'https://x.example/a.png' } },
        'attachment',
      ],
      [
        'an attachment with url and id',
        { attachment: { type: 'image', url: 'https://x.example/a.png', attachment_id: '1' } },
        'attachment.url',
      ],
      [
        'an attachment type Meta lacks',
        { attachment: { type: 'sticker', url: 'https://x.example/a.png' } },
        'attachment.type',
      ],
      [
        'is_reusable with an attachment id',
        { attachment: { type: 'image', attachment_id: '1', is_reusable: true } },
        'attachment.is_reusable',
      ],
      [
        'an http attachment URL',
        { attachment: { type: 'image', url: 'http://x.example/a.png' } },
        'attachment.url',
      ],
      ['nothing to send', {}, 'text'],
    ])('refuses %s (400 naming the field)', async (_name, body, field) => {
      const res = await send('messanger', fb.id, { to: PSID, ...body }).expect(400);
      expect(fields(res)).toContain(field);
      expect(graph.requests).toBe(0);
    });
  });
});
