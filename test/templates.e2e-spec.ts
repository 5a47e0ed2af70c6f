import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { aFollowUp, anOutgoingMessage } from './support/factories';
import { FakeAgentEndpoint } from './support/fake-agent-endpoint';
import { FakeGraphApi, graphErrorReply } from './support/fake-graph-api';
import { validateTemplate } from '../src/sandbox/graph/graph-template-shapes';
import {
  givenFollowUp,
  givenOutgoingMessage,
  givenWhatsappChannel,
  givenWhatsappNotification,
  WhatsappChannel,
} from './support/given';
import { ManualClock } from './support/manual-clock';
import {
  CatalogRow,
  ORDER_UPDATE,
  ORDER_UPDATE_SEND,
  SPRING_SALE,
  SPRING_SALE_SEND,
  SPRING_SALE_SENT_TO_ANA,
} from './support/meta-templates';
import { aWhatsappStatus } from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const META_SECRET = 'meta-app-secret-templates';
const EVENTS_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const WEEK = 7 * 24 * 3_600_000;

/**
 * Templates as Meta's `GET /{waba_id}/message_templates` lists them (the catalog sync's rows):
 * `spring_sale` is NAMED with an IMAGE header, a dynamic URL button and a quick reply;
 * `order_update` is POSITIONAL with a TEXT header variable and a copy-code button.
 */
interface Delivery {
  id: string;
  status: string;
  message_type: string;
  last_error: { code: string; message: string } | null;
}

describe('Templates checked before they go out (e2e)', () => {
  let graph: FakeGraphApi;
  let events: FakeAgentEndpoint;
  let clock: ManualClock;
  let t: TestApp;
  let org: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    events = await FakeAgentEndpoint.start();
    clock = new ManualClock(Date.UTC(2026, 10, 2, 8, 0));
    t = await startApp(
      {
        SCHEDULER_ENABLED: 'true',
        SCHEDULER_TICK_MS: '50',
        GRAPH_API_URL: graph.url,
        GRAPH_API_TIMEOUT_MS: '1500',
        META_APP_SECRET: META_SECRET,
        AGENT_EVENTS_URL: events.url,
        AGENT_EVENTS_SECRET: EVENTS_SECRET,
      },
      { clock },
    );
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
    await events.close();
  });
  beforeEach(() => {
    graph.reset();
    org = newOrganization();
    auth = bearer(tokenFor({ org }));
  });

  const db = () => t.app.get(DataSource);
  /** What the channel sent (other tests' weekly follow-ups run on as the clock moves). */
  const sentThrough = (channel: WhatsappChannel) =>
    graph.messages.filter((message) => message.numberId === channel.number_id);
  /** Once the channel has sent `n` messages: them. */
  const sent = (channel: WhatsappChannel, n: number) =>
    eventually(async () => {
      const messages = sentThrough(channel);
      expect(messages).toHaveLength(n);
      return messages;
    });

  /** The catalog sync's work, done by hand: the channel's account and its templates. */
  async function givenCatalog(
    channel: WhatsappChannel,
    templates: CatalogRow[],
    status = 'APPROVED',
  ): Promise<void> {
    await db().query(
      `UPDATE whatsapp_channels SET business_account_id = '102290129340398', templates_synced_at = now()
        WHERE id = $1`,
      [channel.id],
    );
    for (const template of templates) {
      await db().query(
        `INSERT INTO whatsapp_templates (channel_id, name, language, organization_id, template_id,
                                         status, category, parameter_format, components, updated_at)
         VALUES ($1, $2, $3, $4, '1924084211297547', $5, $6, $7, $8::jsonb, now())`,
        [
          channel.id,
          template.name,
          template.language,
          org,
          status,
          template.category,
          template.parameter_format,
          JSON.stringify(template.components),
        ],
      );
    }
  }
  const setStatus = (channel: WhatsappChannel, name: string, status: string) =>
    db().query('UPDATE whatsapp_templates SET status = $3 WHERE channel_id = $1 AND name = $2', [
      channel.id,
      name,
      status,
    ]);

  const createFollowUp = (channelId: string, template: unknown) =>
    t
      .http()
      .post('/v1/scheduler/follow-up/whatsapp')
      .set(auth)
      // SPRING_SALE_SEND fills {{description}}: a follow-up that uses it must have one.
      .send(aFollowUp(channelId, { description: '20% off every plant', template }));
  const sendNow = (channelId: string, template: unknown) =>
    t
      .http()
      .post(`/v1/channels/whatsapp/${channelId}/messages`)
      .set(auth)
      .send(anOutgoingMessage({ template }));
  const deliveries = async (followUpId: string): Promise<Delivery[]> =>
    (
      await t
        .http()
        .get(`/v1/scheduler/follow-up/whatsapp/${followUpId}/deliveries`)
        .set(auth)
        .expect(200)
    ).body.data.items;

  describe('the shape of a template', () => {
    it.each([
      [{ header: { type: 'text' } }, 'template.header.type', 'text is required for a text header'],
      [{ header: { type: 'image' } }, 'template.header.type', 'media_id or link is required'],
      [
        {
          header: { type: 'image', media_id: '1013859600285441', link: 'https://a.example/x.jpg' },
        },
        'template.header.media_id',
        'give media_id or link, not both',
      ],
      [
        { header: { type: 'text', text: 'x', link: 'https://a.example/x.jpg' } },
        'template.header.link',
        'only for',
      ],
      [{ header: { type: 'location' } }, 'template.header.type', 'location is required'],
      [
        { header: { type: 'location', location: { latitude: 91, longitude: 0 } } },
        'template.header.location.latitude',
        'latitude',
      ],
      [{ header: { type: 'text', text: 'x'.repeat(61) } }, 'template.header.text', '60'],
      [{ header: { type: 'gif', text: 'x' } }, 'template.header.type', 'type'],
      [{ named_parameters: { 'First-Name': 'Ana' } }, 'template.named_parameters', 'lowercase'],
      [{ named_parameters: { first_name: '' } }, 'template.named_parameters', 'non-empty'],
      [{ parameters: ['Ana', ''] }, 'template.parameters', 'should not be empty'],
      [{ named_parameters: ['Ana'] }, 'template.named_parameters', 'object'],
      [
        { buttons: [{ index: 10, sub_type: 'url', parameter: 'x' }] },
        'template.buttons.0.index',
        '9',
      ],
      [
        { buttons: [{ index: 0, sub_type: 'call', parameter: 'x' }] },
        'template.buttons.0.sub_type',
        'sub_type',
      ],
      [
        { buttons: [{ index: 0, sub_type: 'copy_code', parameter: 'SIXTEEN_CHARS_16' }] },
        'template.buttons.0.parameter',
        '15',
      ],
      [{ buttons: [{ index: 0, sub_type: 'url' }] }, 'template.buttons.0.parameter', 'non-empty'],
      [
        {
          buttons: [
            { index: 1, sub_type: 'url', parameter: 'x' },
            { index: 1, sub_type: 'quick_reply', parameter: 'y' },
          ],
        },
        'template.buttons',
        'one entry per index',
      ],
      [
        { buttons: [{ index: 0, sub_type: 'url', parameter: 'x', extra: 1 }] },
        'template.buttons.0.extra',
        'unknown',
      ],
    ])('refuses %j naming %s', async (fields, field, message) => {
      const wa = await givenWhatsappChannel(t, auth);
      const template = { name: 'order_update', language: 'es', ...fields };
      for (const request of [createFollowUp(wa.id, template), sendNow(wa.id, template)]) {
        const res = await request.expect(400);
        expect(res.body.code).toBe('validation_failed');
        const error = (res.body.errors as { field: string; message: string }[]).find(
          (e) => e.field === field,
        );
        expect(error?.message).toContain(message);
      }
    });

    it('stores the template as given (parameters default to none) and answers it', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        description: '20% off every plant',
        template: { ...SPRING_SALE_SEND, parameters: undefined },
      });
      expect(created.template).toEqual(SPRING_SALE_SEND);
      const read = await t
        .http()
        .get(`/v1/scheduler/follow-up/whatsapp/${created.id}`)
        .set(auth)
        .expect(200);
      expect(read.body.template).toEqual(SPRING_SALE_SEND);
    });
  });

  describe('422 template_invalid, when the channel has a catalog', () => {
    const causes: [string, Record<string, unknown>, string, string][] = [
      [
        'a language the account does not have',
        { ...ORDER_UPDATE_SEND, language: 'en_US' },
        'template.language',
        'template "order_update" does not exist in en_US; the account has it in es',
      ],
      [
        'a template the account does not have',
        { ...ORDER_UPDATE_SEND, name: 'no_such_template' },
        'template.name',
        `template "no_such_template" does not exist in the channel's WhatsApp Business Account`,
      ],
      [
        'too few positional parameters',
        { ...ORDER_UPDATE_SEND, parameters: ['Ana'] },
        'template.parameters',
        "the template's body has 2 variables ({{1}}, {{2}}); 1 parameter given",
      ],
      [
        'named parameters for a positional template',
        { ...ORDER_UPDATE_SEND, named_parameters: { name: 'Ana' } },
        'template.named_parameters',
        'positional',
      ],
      [
        'a named parameter missing and one extra',
        { ...SPRING_SALE_SEND, named_parameters: { first_name: 'Ana', discount: '20%' } },
        'template.named_parameters',
        "missing offer; not in the template's body: discount",
      ],
      [
        'positional parameters for a named template',
        { ...SPRING_SALE_SEND, parameters: ['Ana', '20%'] },
        'template.parameters',
        'give them in named_parameters',
      ],
      [
        'no header parameter for an IMAGE header',
        { ...SPRING_SALE_SEND, header: undefined },
        'template.header',
        `the template's header is IMAGE: give header { type: "image" } with its media_id or link`,
      ],
      [
        'a header of another format',
        { ...SPRING_SALE_SEND, header: { type: 'document', media_id: '1013859600285441' } },
        'template.header.type',
        "the template's header is IMAGE, not document",
      ],
      [
        'no text for a TEXT header with a variable',
        { ...ORDER_UPDATE_SEND, header: undefined },
        'template.header',
        "the template's header is TEXT ({{1}})",
      ],
      [
        'no parameter for a dynamic URL button',
        { ...SPRING_SALE_SEND, buttons: undefined },
        'template.buttons',
        'button 0 (URL) needs a parameter',
      ],
      [
        'no coupon code for a COPY_CODE button',
        { ...ORDER_UPDATE_SEND, buttons: undefined },
        'template.buttons',
        'button 0 (COPY_CODE) needs a parameter',
      ],
      [
        'a button parameter of the wrong sub_type',
        { ...SPRING_SALE_SEND, buttons: [{ index: 0, sub_type: 'copy_code', parameter: 'X1' }] },
        'template.buttons.0.sub_type',
        'button 0 is URL: its sub_type is url, not copy_code',
      ],
      [
        'a parameter for a button the template does not have',
        {
          ...SPRING_SALE_SEND,
          buttons: [...SPRING_SALE_SEND.buttons, { index: 4, sub_type: 'url', parameter: 'x' }],
        },
        'template.buttons.1',
        'the template has no button at index 4 (it has 2 buttons)',
      ],
    ];

    it.each(causes)('refuses %s, naming it', async (_, template, field, message) => {
      const wa = await givenWhatsappChannel(t, auth);
      await givenCatalog(wa, [SPRING_SALE, ORDER_UPDATE]);
      for (const request of [createFollowUp(wa.id, template), sendNow(wa.id, template)]) {
        const res = await request.expect(422);
        expect(res.body).toMatchObject({ code: 'template_invalid', status: 422 });
        expect(res.body.detail).toContain(message);
        expect(res.body.errors).toContainEqual({
          field,
          message: expect.stringContaining(message),
        });
      }
      expect(sentThrough(wa)).toEqual([]);
    });

    it.each(['PAUSED', 'DISABLED', 'PENDING', 'REJECTED'])(
      'refuses a %s template, saying its status',
      async (status) => {
        const wa = await givenWhatsappChannel(t, auth);
        await givenCatalog(wa, [ORDER_UPDATE], status);
        for (const request of [
          createFollowUp(wa.id, ORDER_UPDATE_SEND),
          sendNow(wa.id, ORDER_UPDATE_SEND),
        ]) {
          const res = await request.expect(422);
          expect(res.body.code).toBe('template_invalid');
          expect(res.body.detail).toContain(
            `template "order_update" (es) is ${status}; only APPROVED templates can be sent`,
          );
        }
      },
    );

    it.each([
      [
        'CAROUSEL',
        { type: 'CAROUSEL', cards: [{ components: [{ type: 'BODY', text: 'Card one' }] }] },
        'CAROUSEL components are not supported by agentline yet',
      ],
      [
        'CATALOG',
        { type: 'BUTTONS', buttons: [{ type: 'CATALOG', text: 'View catalog' }] },
        'CATALOG buttons (button 0) are not supported by agentline yet',
      ],
    ])('refuses a template with a %s it cannot fill, naming it', async (_, component, message) => {
      const wa = await givenWhatsappChannel(t, auth);
      const row: CatalogRow = {
        name: 'new_collection',
        language: 'en_US',
        category: 'MARKETING',
        parameter_format: 'POSITIONAL',
        components: [{ type: 'BODY', text: 'Our new collection is here.' }, component],
      };
      await givenCatalog(wa, [row]);
      const template = { name: 'new_collection', language: 'en_US' };
      for (const request of [createFollowUp(wa.id, template), sendNow(wa.id, template)]) {
        const res = await request.expect(422);
        expect(res.body).toMatchObject({ code: 'template_invalid', status: 422 });
        expect(res.body.errors).toEqual([{ field: 'template.name', message }]);
      }
      expect(sentThrough(wa)).toEqual([]);
    });

    it('accepts a template that gets exactly what it needs', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await givenCatalog(wa, [SPRING_SALE, ORDER_UPDATE]);
      await createFollowUp(wa.id, SPRING_SALE_SEND).expect(201);
      await sendNow(wa.id, ORDER_UPDATE_SEND).expect(202);
    });

    it("answers 404 for another organization's channel before looking at the template", async () => {
      const wa = await givenWhatsappChannel(t, auth);
      await givenCatalog(wa, [ORDER_UPDATE]);
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      await t
        .http()
        .post(`/v1/channels/whatsapp/${wa.id}/messages`)
        .set(stranger)
        .send(anOutgoingMessage({ template: { ...ORDER_UPDATE_SEND, language: 'en' } }))
        .expect(404);
    });
  });

  it("sends a weekly follow-up's image header, named variables and URL button in Meta's shape, filled", async () => {
    const wa = await givenWhatsappChannel(t, auth);
    await givenCatalog(wa, [SPRING_SALE]);
    const created = await givenFollowUp(t, auth, wa.id, {
      frequency: 'weekly',
      title: 'Ana',
      description: '20% off every plant',
      client_phone_numbers: ['+34612345678'],
      template: SPRING_SALE_SEND,
    });
    clock.set(created.next_run_at);
    const [message] = await sent(wa, 1);
    expect(message.payload).toEqual(SPRING_SALE_SENT_TO_ANA);
  });

  /** A weekly follow-up of `order_update` on a channel with `catalog`, its first occurrence sent. */
  async function weeklyOrderUpdateSentOnce(catalog: CatalogRow[]) {
    const wa = await givenWhatsappChannel(t, auth);
    await givenCatalog(wa, catalog);
    const created = await givenFollowUp(t, auth, wa.id, {
      frequency: 'weekly',
      client_phone_numbers: ['+34612345678'],
      template: ORDER_UPDATE_SEND,
    });
    clock.set(created.next_run_at);
    await sent(wa, 1);
    await eventually(async () =>
      expect((await deliveries(created.id)).map((d) => d.status)).toEqual(['sent']),
    );
    return { wa, created };
  }
  /** A week later: the follow-up's latest delivery, failed. */
  async function nextOccurrenceFails(followUpId: string): Promise<Delivery> {
    clock.advance(WEEK);
    return eventually(async () => {
      const [latest] = await deliveries(followUpId);
      expect(latest.status).toBe('failed');
      return latest;
    });
  }

  it('stops sending a template paused after the follow-up was made, says why, and sends it again once approved', async () => {
    const { wa, created } = await weeklyOrderUpdateSentOnce([ORDER_UPDATE]);
    await setStatus(wa, 'order_update', 'PAUSED');
    const failed = await nextOccurrenceFails(created.id);
    expect(failed.last_error).toEqual({
      code: 'template_not_approved',
      message:
        'The template "order_update" (es) is PAUSED, not APPROVED; not sent. A later occurrence sends it once Meta approves it again.',
    });
    expect(sentThrough(wa)).toHaveLength(1);
    await eventually(async () => {
      const told = events
        .events('delivery.updated')
        .map((event) => event.body.data as { id: string; status: string; last_error: unknown })
        .find((data) => data.id === failed.id);
      expect(told).toMatchObject({ status: 'failed', last_error: failed.last_error });
    });

    await setStatus(wa, 'order_update', 'APPROVED');
    clock.advance(WEEK);
    await sent(wa, 2);
    await eventually(async () =>
      expect((await deliveries(created.id)).map((d) => d.status)).toEqual([
        'sent',
        'failed',
        'sent',
      ]),
    );
  });

  it('fails a template removed from the catalog since, without calling Meta', async () => {
    const { wa, created } = await weeklyOrderUpdateSentOnce([
      ORDER_UPDATE,
      { ...ORDER_UPDATE, language: 'pt_BR' },
    ]);
    await db().query("DELETE FROM whatsapp_templates WHERE channel_id = $1 AND language = 'es'", [
      wa.id,
    ]);
    const failed = await nextOccurrenceFails(created.id);
    expect(failed.last_error).toEqual({
      code: 'template_not_found',
      message:
        'The template "order_update" (es) no longer exists in the channel\'s WhatsApp Business Account (it has pt_BR); not sent.',
    });
    expect(sentThrough(wa)).toHaveLength(1);
  });

  describe("a follow-up's filled values, as Meta takes them", () => {
    it('refuses {{description}} in a template value when the follow-up has no description (400 naming it)', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const template = {
        ...ORDER_UPDATE_SEND,
        parameters: ['{{title}}', '{{ description }}'],
        buttons: [{ index: 0, sub_type: 'copy_code', parameter: '{{description}}' }],
      };
      for (const description of [undefined, '', '   ']) {
        const res = await t
          .http()
          .post('/v1/scheduler/follow-up/whatsapp')
          .set(auth)
          .send(aFollowUp(wa.id, { description, template }))
          .expect(400);
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.errors).toEqual([
          {
            field: 'template.parameters.1',
            message:
              'template.parameters.1 uses {{description}}, but the follow-up has no description: give one, or another value',
          },
          {
            field: 'template.buttons.0.parameter',
            message:
              'template.buttons.0.parameter uses {{description}}, but the follow-up has no description: give one, or another value',
          },
        ]);
      }
      await t
        .http()
        .post('/v1/scheduler/follow-up/whatsapp')
        .set(auth)
        .send(aFollowUp(wa.id, { description: 'SPRING25', template }))
        .expect(201);
    });

    it('fails a delivery whose {{message}} is too long for a header text, without calling Meta', async () => {
      const wa = await givenWhatsappChannel(t, auth);
      const created = await givenFollowUp(t, auth, wa.id, {
        frequency: 'weekly',
        client_phone_numbers: ['+34612345678'],
        prompt:
          'Ask {{title}} whether the order arrived on time and everything in it was as ordered.',
        template: { ...ORDER_UPDATE_SEND, header: { type: 'text', text: '{{message}}' } },
      });
      clock.set(created.next_run_at);
      const failed = await eventually(async () => {
        const [latest] = await deliveries(created.id);
        expect(latest.status).toBe('failed');
        return latest;
      });
      expect(failed.last_error).toEqual({
        code: 'template_parameter_invalid',
        message:
          "The template's filled values do not fit Meta's limits: template.header.text is 92 characters once filled; Meta's limit there is 60; not sent.",
      });
      expect(sentThrough(wa)).toEqual([]);
    });
  });

  it('sends a template as given when the channel has no catalog', async () => {
    const wa = await givenWhatsappChannel(t, auth);
    const template = {
      name: 'anything_goes',
      language: 'fr',
      parameters: ['{{title}}'],
      header: {
        type: 'location',
        location: { latitude: 48.8584, longitude: 2.2945, name: 'Tour Eiffel' },
      },
      buttons: [
        { index: 1, sub_type: 'quick_reply', parameter: 'stop' },
        { index: 0, sub_type: 'flow', parameter: 'flow-token-7' },
      ],
    };
    await givenOutgoingMessage(t, auth, wa, { template });
    const [message] = await sent(wa, 1);
    expect(message.payload).toMatchObject({
      type: 'template',
      template: {
        name: 'anything_goes',
        language: { code: 'fr' },
        components: [
          {
            type: 'header',
            parameters: [
              {
                type: 'location',
                location: { latitude: 48.8584, longitude: 2.2945, name: 'Tour Eiffel' },
              },
            ],
          },
          { type: 'body', parameters: [{ type: 'text', text: '{{title}}' }] },
          {
            type: 'button',
            sub_type: 'flow',
            index: '0',
            parameters: [{ type: 'action', action: { flow_token: 'flow-token-7' } }],
          },
          {
            type: 'button',
            sub_type: 'quick_reply',
            index: '1',
            parameters: [{ type: 'payload', payload: 'stop' }],
          },
        ],
      },
    });
  });

  describe("Meta's template errors fail the delivery for good", () => {
    const TEMPLATE_ERRORS: [number, string][] = [
      [132000, 'Number of parameters does not match the expected number of params'],
      [132001, 'Template does not exist'],
      [132005, 'Template hydrated text too long'],
      [132007, 'Template Format Character Policy Violated'],
      [132012, 'Template parameter format mismatch'],
      [132018, 'There was an issue with the parameters in your template'],
      [132015, 'Template is Paused'],
      [132016, 'Template is Disabled'],
      [132068, 'Flow is blocked'],
      [132069, 'Flow is throttled'],
    ];

    const channelDeliveries = async (wa: WhatsappChannel): Promise<Delivery[]> =>
      (await t.http().get(`/v1/channels/whatsapp/${wa.id}/deliveries`).set(auth).expect(200)).body
        .data.items;

    it.each(TEMPLATE_ERRORS)('a failed status with %d', async (code, title) => {
      const wa = await givenWhatsappChannel(t, auth);
      await givenOutgoingMessage(t, auth, wa, { template: ORDER_UPDATE_SEND });
      const [message] = await sent(wa, 1);
      await eventually(async () => expect((await channelDeliveries(wa))[0].status).toBe('sent'));
      await givenWhatsappNotification(t, wa, META_SECRET, {
        statuses: [
          aWhatsappStatus(message.wamid, 'failed', { at: clock.now(), errors: [{ code, title }] }),
        ],
      });
      const [failed] = await eventually(async () => {
        const items = await channelDeliveries(wa);
        expect(items[0].status).toBe('failed');
        return items;
      });
      expect(failed.last_error?.code).toBe(String(code));
      clock.advance(WEEK);
      expect(sentThrough(wa)).toHaveLength(1);
    });

    it.each(TEMPLATE_ERRORS)('a send answered with %d', async (code, title) => {
      const wa = await givenWhatsappChannel(t, auth);
      graph.respondWith((req) =>
        req.numberId === wa.number_id ? graphErrorReply(400, code, title) : undefined,
      );
      await givenOutgoingMessage(t, auth, wa, { template: ORDER_UPDATE_SEND });
      const [failed] = await eventually(async () => {
        const items = await channelDeliveries(wa);
        expect(items[0].status).toBe('failed');
        return items;
      });
      expect(failed.last_error?.code).toBe(String(code));
    });
  });

  describe('the fake Graph API refuses the template bodies Meta refuses', () => {
    const template = (...components: unknown[]) => ({
      name: 'spring_sale',
      language: { code: 'en_US' },
      components,
    });
    const body = (...parameters: unknown[]) => ({ type: 'body', parameters });
    const header = (parameter: unknown) => ({ type: 'header', parameters: [parameter] });
    const button = (sub_type: string, index: unknown, parameter: unknown) => ({
      type: 'button',
      sub_type,
      index,
      parameters: [parameter],
    });

    it.each([
      ['an empty body component', template(body())],
      ['a body parameter with a new line', template(body({ type: 'text', text: 'a\nb' }))],
      [
        'a body parameter of 1,025 characters',
        template(body({ type: 'text', text: 'x'.repeat(1025) })),
      ],
      [
        'named and positional body parameters mixed',
        template(
          body(
            { type: 'text', text: 'a', parameter_name: 'first_name' },
            { type: 'text', text: 'b' },
          ),
        ),
      ],
      [
        'two body components',
        template(body({ type: 'text', text: 'a' }), body({ type: 'text', text: 'b' })),
      ],
      [
        'an image header with id and link',
        template(header({ type: 'image', image: { id: '1', link: 'https://a.example/x.jpg' } })),
      ],
      ['an image header with neither', template(header({ type: 'image', image: {} }))],
      ['a header text of 61 characters', template(header({ type: 'text', text: 'x'.repeat(61) }))],
      [
        'a location header without longitude',
        template(header({ type: 'location', location: { latitude: 1 } })),
      ],
      ['a header of an unknown type', template(header({ type: 'gif', gif: { id: '1' } }))],
      ['a button without index', template(button('url', undefined, { type: 'text', text: 'x' }))],
      ['a button index of 10', template(button('url', '10', { type: 'text', text: 'x' }))],
      [
        'a url button with a payload',
        template(button('url', '0', { type: 'payload', payload: 'x' })),
      ],
      [
        'a quick reply with text',
        template(button('quick_reply', '0', { type: 'text', text: 'x' })),
      ],
      [
        'a coupon code of 16 characters',
        template(button('copy_code', '0', { type: 'coupon_code', coupon_code: 'A'.repeat(16) })),
      ],
      ['a flow button without action', template(button('flow', '0', { type: 'action' }))],
      [
        'two buttons at one index',
        template(
          button('url', '0', { type: 'text', text: 'x' }),
          button('url', '0', { type: 'text', text: 'y' }),
        ),
      ],
      [
        'a component of an unknown type',
        template({ type: 'footer', parameters: [{ type: 'text', text: 'x' }] }),
      ],
    ])('%s', (_, sent) => {
      expect(validateTemplate(sent)).toEqual(expect.stringMatching(/^\(#1(00|31008)\)/));
    });

    it("accepts Meta's documented shapes", () => {
      expect(
        validateTemplate(
          template(
            header({
              type: 'document',
              document: { id: '1013859600285441', filename: 'menu.pdf' },
            }),
            body(
              { type: 'text', text: 'Ana' },
              {
                type: 'currency',
                currency: { fallback_value: '$100.99', code: 'USD', amount_1000: 100990 },
              },
              { type: 'date_time', date_time: { fallback_value: 'February 25, 1977' } },
            ),
            button('copy_code', 1, { type: 'coupon_code', coupon_code: '25OFF' }),
            button('flow', '2', { type: 'action', action: { flow_token: 'unused' } }),
          ),
        ),
      ).toMatchObject({ name: 'spring_sale', languageCode: 'en_US', bodyParameters: ['Ana'] });
    });
  });
});
