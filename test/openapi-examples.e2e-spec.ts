import { randomBytes } from 'node:crypto';
import { eventually } from './support/eventually';
import { FakeGraphApi } from './support/fake-graph-api';
import { metaTemplates } from './support/fake-graph-templates';
import { metaSignature } from './support/meta-webhooks';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';

/**
 * Every operation of the OpenAPI document, run as a new user runs it from Swagger UI: with the
 * operation's own examples (each named request example, else the body Swagger UI builds from the
 * schema's examples), and path ids taken from the answers of earlier operations, as each id's
 * description says. Each must succeed. The example bodies are read from the document, so an
 * example that stops working fails here (issue 11: "run every operation from Swagger UI with its
 * own examples").
 */

interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  example?: unknown;
  enum?: unknown[];
  readOnly?: boolean;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  example?: unknown;
  description?: string;
  schema?: Schema;
}
interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const APP_SECRET = 'examples-app-secret';
/** What a user uploads from Swagger UI: a small JPEG (its first bytes, and some). */
const EXAMPLE_PHOTO = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2048)]);
/** Run with their own examples by test/sandbox.e2e-spec.ts, on an app with the sandbox on. */
const SANDBOX_OPERATIONS = ['simulateWhatsappInbound', 'simulateMessangerInbound'];
/** The placeholder channel id of the follow-up example, which says to replace it. */
const PLACEHOLDER_CHANNEL_ID = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('OpenAPI examples, run as Swagger UI runs them (e2e)', () => {
  let graph: FakeGraphApi;
  let t: TestApp;
  let doc: OpenApiDocument;
  const auth = bearer(tokenFor({ org: `org-${randomBytes(6).toString('hex')}` }));
  /** The operations run so far (each must answer 2xx, or the run stops there). */
  const ran = new Set<string>();

  beforeAll(async () => {
    graph = await FakeGraphApi.start();
    t = await startApp({
      SCHEDULER_ENABLED: 'true',
      SCHEDULER_TICK_MS: '100',
      GRAPH_API_URL: graph.url,
      META_APP_SECRET: APP_SECRET,
      OAUTH_GOOGLE_CLIENT_ID: 'examples-client',
      OAUTH_GOOGLE_CLIENT_SECRET: 'examples-client-secret',
    });
    doc = (await t.http().get('/v1/openapi.json').expect(200)).body as OpenApiDocument;
  });
  afterAll(async () => {
    await t.close();
    await graph.close();
  });

  const resolve = (schema: Schema): Schema =>
    schema.$ref ? resolve(doc.components.schemas[schema.$ref.split('/').pop() as string]) : schema;

  /** The example Swagger UI shows for a schema: its own, else one built from its properties'. */
  const sample = (given: Schema): unknown => {
    const schema = resolve(given);
    if (schema.example !== undefined) return schema.example;
    if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s) => sample(s) as object));
    if (schema.oneOf) return sample(schema.oneOf[0]);
    if (schema.enum) return schema.enum[0];
    if (schema.type === 'array') return [sample(schema.items ?? {})];
    if (schema.type === 'object' || schema.properties) {
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([, property]) => !resolve(property).readOnly)
          .map(([name, property]) => [name, sample(property)]),
      );
    }
    return { string: 'string', number: 0, integer: 0, boolean: true }[schema.type ?? 'string'];
  };

  /**
   * The secret Meta would sign a channel's notifications with: the `app_secret` its creation
   * example binds to it (the channel's own, which alone verifies them), else META_APP_SECRET.
   */
  const signingSecret = (path: string): string => {
    const create = path.includes('/whatsapp/') ? 'createWhatsappChannel' : 'createMessangerChannel';
    const body = bodies(find(create).operation)[0].value as { app_secret?: string };
    return body.app_secret ?? APP_SECRET;
  };

  const find = (operationId: string): { method: string; path: string; operation: Operation } => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.operationId === operationId) return { method, path, operation };
      }
    }
    throw new Error(`no operation ${operationId} in the document`);
  };

  /** The request bodies Swagger UI offers: each named example, or the schema's. */
  const bodies = (operation: Operation): { name: string; summary?: string; value: unknown }[] => {
    const json = operation.requestBody?.content['application/json'];
    if (!json) return [{ name: 'none', value: undefined }];
    if (json.examples) {
      return Object.entries(json.examples).map(([name, e]) => ({ name, ...e }));
    }
    return [{ name: 'schema', value: json.example ?? sample(json.schema ?? {}) }];
  };

  /**
   * Runs one operation with its examples: `ids` fills path parameters (from earlier answers), and
   * required query parameters without an example (the webhook handshake's token). Returns the
   * answer per request example.
   */
  async function run(
    operationId: string,
    ids: Record<string, string> = {},
    fill: (body: unknown, summary?: string) => unknown = (body) => body,
  ): Promise<Record<string, { status: number; body: Record<string, unknown>; text: string }>> {
    const { method, path, operation } = find(operationId);
    const answers: Record<string, { status: number; body: Record<string, unknown>; text: string }> =
      {};
    for (const example of bodies(operation)) {
      let url = path;
      const query: Record<string, string> = {};
      const headers: Record<string, string> = {};
      for (const parameter of operation.parameters ?? []) {
        const value = ids[parameter.name] ?? parameter.example ?? parameter.schema?.example;
        if (parameter.in === 'path') {
          if (value === undefined)
            throw new Error(`${operationId}: no value for {${parameter.name}}`);
          url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
        } else if (value !== undefined && parameter.in === 'query') {
          query[parameter.name] = String(value);
        } else if (value !== undefined && parameter.in === 'header') {
          headers[parameter.name] = String(value);
        }
      }
      const body = fill(example.value, example.summary);
      const raw = body === undefined ? undefined : JSON.stringify(body);
      if (path.startsWith('/v1/webhooks/') && method === 'post') {
        headers['X-Hub-Signature-256'] = metaSignature(raw ?? '', signingSecret(path));
      }
      const http = t.http();
      let request = http[method as 'get' | 'post' | 'put' | 'delete'](url)
        .query(query)
        .set(auth)
        .set(headers);
      if (raw !== undefined) request = request.set('Content-Type', 'application/json').send(raw);
      // A file field of a multipart form: the file a user picks in Swagger UI, a small photo.
      const form = operation.requestBody?.content['multipart/form-data']?.schema;
      for (const [name, property] of Object.entries(form?.properties ?? {})) {
        if (property.format === 'binary') {
          request = request.attach(name, EXAMPLE_PHOTO, {
            filename: 'photo.jpg',
            contentType: 'image/jpeg',
          });
        }
      }
      const res = await request;
      answers[example.name] = { status: res.status, body: res.body, text: res.text };
      ran.add(operationId);
      if (res.status < 200 || res.status > 299) {
        throw new Error(
          `${operationId} (${example.name}) answered ${res.status}: ${res.text.slice(0, 500)}`,
        );
      }
    }
    return answers;
  }

  const data = (answer: { body: Record<string, unknown> }) =>
    answer.body.data as Record<string, string>;

  it('every operation succeeds with its own examples, in the order a new user goes', async () => {
    // Tools: each example of POST /v1/tools attaches its tool.
    const tools = await run('createTool');
    const math = data(tools['Math.Calculate']).id;
    const google = data(tools['Google.ListCalendarEvents']).id;
    expect(data(tools['Google.ListCalendarEvents']).authorization_status).toBe('pending');
    await run('listToolSpecifications');
    await run('listTools');
    await run('getTool', { id: math });
    const executed = await run('executeTool', { id: math });
    expect(data(executed['Math.Calculate'])).toMatchObject({
      status: 'succeeded',
      output: { value: 7.5 },
    });
    await run('listToolExecutions', { id: math });
    await run('authorizeTool', { id: google });

    // Channels, and Meta's side of them. The example's business account has templates at Meta.
    const exampleAccount =
      find('createWhatsappChannel').operation.requestBody?.content['application/json'].schema;
    const account = (resolve(exampleAccount ?? {}).properties?.business_account_id ?? {}).example;
    graph.templates.set(String(account), metaTemplates());
    const whatsapp = data((await run('createWhatsappChannel')).schema);
    const messanger = data((await run('createMessangerChannel')).schema);
    await run('listWhatsappChannels');
    await run('getWhatsappChannel', { id: whatsapp.id });
    await eventually(async () =>
      expect(
        (await t.http().get(`/v1/channels/whatsapp/${whatsapp.id}/templates`).set(auth)).body.data
          .total_count,
      ).toBe(metaTemplates().length),
    );
    const templates = await run('listWhatsappTemplates', { id: whatsapp.id });
    expect(data(templates.none) as unknown as { items: unknown[] }).toMatchObject({
      items: [expect.objectContaining({ status: 'APPROVED' })],
    });
    await run('syncWhatsappTemplates', { id: whatsapp.id });
    await run('listMessangerChannels');
    await run('getMessangerChannel', { id: messanger.id });
    const challenge = await run('verifyWhatsappWebhook', {
      channel_id: whatsapp.id,
      'hub.verify_token': whatsapp.verification_token,
    });
    expect(challenge.none.text).toBe('1158201444');
    await run('verifyMessangerWebhook', {
      channel_id: messanger.id,
      'hub.verify_token': messanger.verification_token,
    });
    await run('receiveWhatsappWebhook', { channel_id: whatsapp.id });
    // Meta stamps a notification when it sends it; the example's time is long past, and a message
    // older than 24 hours opens no window (the body's description says so).
    await run('receiveMessangerWebhook', { channel_id: messanger.id }, (body) =>
      JSON.parse(JSON.stringify(body).replace(/1763800000000/g, String(Date.now()))),
    );
    // The notifications are the examples' own: their message is listed once processed.
    await eventually(async () =>
      expect(
        (await t.http().get(`/v1/channels/whatsapp/${whatsapp.id}/messages`).set(auth)).body.data
          .total_count,
      ).toBe(1),
    );
    await eventually(async () =>
      expect(
        (await t.http().get(`/v1/channels/messanger/${messanger.id}/messages`).set(auth)).body.data
          .total_count,
      ).toBe(1),
    );
    await run('listWhatsappMessages', { id: whatsapp.id });
    await run('listMessangerMessages', { id: messanger.id });
    // The media a client sent, by the example's media id: Meta keeps it.
    const mediaId = find('downloadWhatsappMedia').operation.parameters?.find(
      (parameter) => parameter.name === 'media_id',
    );
    graph.addMedia({
      id: String(mediaId?.example ?? mediaId?.schema?.example),
      mimeType: 'image/jpeg',
      size: 2048,
    });
    await run('downloadWhatsappMedia', { id: whatsapp.id });
    // Uploading a photo to send, then marking the example's message read (with typing) and
    // showing the Messenger example's person that the page is typing.
    const uploaded = await run('uploadWhatsappMedia', { id: whatsapp.id });
    expect(data(uploaded.none)).toMatchObject({
      mime_type: 'image/jpeg',
      size: EXAMPLE_PHOTO.length,
    });
    await run('markWhatsappMessageRead', { id: whatsapp.id });
    expect(graph.actions.readReceipts).toHaveLength(2);
    await run('sendMessangerSenderAction', { id: messanger.id });
    expect(graph.actions.senderActions).toHaveLength(2);

    // Sending now: the Messenger example writes to the person of the notification example, who
    // wrote to the page just now (inside Messenger's 24-hour window).
    await run('sendWhatsappMessage', { id: whatsapp.id });
    await run('sendMessangerMessage', { id: messanger.id });
    // Every example of both operations is sent (text, template and each rich message).
    const sent = ['sendWhatsappMessage', 'sendMessangerMessage'].reduce(
      (count, id) => count + bodies(find(id).operation).length,
      0,
    );
    await eventually(async () => expect(graph.messages).toHaveLength(sent));
    await run('listWhatsappDeliveries', { id: whatsapp.id });
    await run('listMessangerDeliveries', { id: messanger.id });
    await run('optOutWhatsappNumber', { id: whatsapp.id });
    await run('listWhatsappOptOuts', { id: whatsapp.id });
    await run('optInWhatsappNumber', { id: whatsapp.id });

    // Follow-ups: the example's summary says to replace channel_id, as a user would.
    const created = await run('createWhatsappFollowUp', {}, (body, summary) => {
      expect(summary).toContain('channel_id');
      expect(body).toMatchObject({ channel_id: PLACEHOLDER_CHANNEL_ID });
      return { ...(body as object), channel_id: whatsapp.id };
    });
    const followUp = Object.values(created)[0].body.id as unknown as string;
    await run('getWhatsappFollowUp', { id: followUp });
    await run('listFollowUps');
    await run('pauseFollowUp', { id: followUp });
    await run('resumeFollowUp', { id: followUp });
    await run('listDeliveries', { id: followUp });
    await run('previewSchedule');

    // Updates and removals.
    await run('updateWhatsappChannel', { id: whatsapp.id });
    await run('updateMessangerChannel', { id: messanger.id });
    await run('deleteTool', { id: math });
    await run('deleteFollowUp', { id: followUp });
    await run('deleteWhatsappChannel', { id: whatsapp.id });
    await run('deleteMessangerChannel', { id: messanger.id });

    // A removed resource answers the 404 its operation documents, word for word.
    const documented404 = (operationId: string) =>
      (
        find(operationId).operation.responses['404'].content?.['application/problem+json']
          ?.example as { detail: string }
      ).detail;
    for (const [operationId, path] of [
      ['getTool', `/v1/tools/${math}`],
      ['getWhatsappFollowUp', `/v1/scheduler/follow-up/whatsapp/${followUp}`],
      ['getWhatsappChannel', `/v1/channels/whatsapp/${whatsapp.id}`],
      ['getMessangerChannel', `/v1/channels/messanger/${messanger.id}`],
    ]) {
      const res = await t.http().get(path).set(auth).expect(404);
      expect(res.body.detail).toBe(documented404(operationId));
    }

    // Every operation of the document was run: a new one must be added above. The sandbox's run
    // with their examples in sandbox.e2e-spec.ts: they need META_SANDBOX=true, which this app's
    // fake GRAPH_API_URL rules out.
    const all = Object.values(doc.paths)
      .flatMap((operations) => Object.values(operations).map((operation) => operation.operationId))
      .filter((operationId) => !SANDBOX_OPERATIONS.includes(operationId));
    expect([...ran].sort()).toEqual([...all].sort());
  });
});
