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
  /** OpenAPI 3.1: `["string", "null"]` for a nullable one. */
  type?: string | string[];
  format?: string;
  example?: unknown;
  enum?: unknown[];
  readOnly?: boolean;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
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
  /** The newcomer's token: one organization per test, as each walk starts from nothing. */
  let auth = bearer(tokenFor({ org: `org-${randomBytes(6).toString('hex')}` }));
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
    if (schema.anyOf) return sample(schema.anyOf[0]);
    if (schema.enum) return schema.enum[0];
    const type = [schema.type ?? 'string'].flat().find((name) => name !== 'null') ?? 'string';
    if (type === 'array') return [sample(schema.items ?? {})];
    if (type === 'object' || schema.properties) {
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([, property]) => !resolve(property).readOnly)
          .map(([name, property]) => [name, sample(property)]),
      );
    }
    return { string: 'string', number: 0, integer: 0, boolean: true }[type];
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

  /**
   * What a newcomer has done before an operation, in whatever order they go: an operation that
   * needs an id gets one from the resource's own creation example (made now when there is none,
   * as they would); a creation first removes what it would duplicate (a second channel for the
   * example's number is a 409 by contract); a Messenger reply and a read receipt need the person
   * to have written (the window, the message), and a media download needs Meta to hold the media.
   * Removals consume.
   */
  interface World {
    tools: Partial<Record<'math' | 'google', string>>;
    channels: Partial<Record<'whatsapp' | 'messanger', Record<string, string>>>;
    followUp?: string;
    /** Channels a client wrote to, just now (the notification example, sent by "Meta"). */
    wrote: Set<'whatsapp' | 'messanger'>;
  }
  type Kind = 'whatsapp' | 'messanger';
  const kindOf = (path: string): Kind | undefined =>
    path.includes('/whatsapp') ? 'whatsapp' : path.includes('/messanger') ? 'messanger' : undefined;
  const createOf: Record<Kind, string> = {
    whatsapp: 'createWhatsappChannel',
    messanger: 'createMessangerChannel',
  };
  /** Meta stamps a notification when it sends it: the example's time, made now (see above). */
  const now = (body: unknown): unknown =>
    body === undefined
      ? body
      : JSON.parse(JSON.stringify(body).replace(/1763800000000/g, String(Date.now())));

  function walker(world: World) {
    const post = async (path: string, body: unknown) => {
      const res = await t
        .http()
        .post(path)
        .set(auth)
        .send(body as object);
      if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${res.text}`);
      return res.body as { id?: string; data: Record<string, string> };
    };
    const example = (operationId: string, name?: string) => {
      const all = bodies(find(operationId).operation);
      return (all.find((body) => body.name === name) ?? all[0]).value;
    };
    const tool = async (which: 'math' | 'google') => {
      const name = which === 'math' ? 'Math.Calculate' : 'Google.ListCalendarEvents';
      world.tools[which] ??= (await post('/v1/tools', example('createTool', name))).data.id;
      return world.tools[which];
    };
    const channel = async (kind: Kind) => {
      world.channels[kind] ??= (await post(`/v1/channels/${kind}`, example(createOf[kind]))).data;
      return world.channels[kind];
    };
    const removeChannel = async (kind: Kind) => {
      const existing = world.channels[kind];
      if (!existing) return;
      await t.http().delete(`/v1/channels/${kind}/${existing.id}`).set(auth).expect(204);
      delete world.channels[kind];
      world.wrote.delete(kind);
      // Its follow-ups stop with it.
      if (kind === 'whatsapp') delete world.followUp;
    };
    const followUp = async () => {
      const { id } = await channel('whatsapp');
      world.followUp ??= (await post('/v1/scheduler/follow-up/whatsapp', {
        ...(example('createWhatsappFollowUp') as object),
        channel_id: id,
      }))!.id;
      return world.followUp as string;
    };
    /** A client writes: the channel's notification example, signed as Meta signs it. */
    const write = async (kind: Kind) => {
      if (world.wrote.has(kind)) return;
      const { id } = await channel(kind);
      const path = `/v1/webhooks/${kind}/${id}`;
      const raw = JSON.stringify(
        now(example(kind === 'whatsapp' ? 'receiveWhatsappWebhook' : 'receiveMessangerWebhook')),
      );
      await t
        .http()
        .post(path)
        .set('Content-Type', 'application/json')
        .set('X-Hub-Signature-256', metaSignature(raw, signingSecret(path)))
        .send(raw)
        .expect(200);
      await eventually(async () =>
        expect(
          (await t.http().get(`/v1/channels/${kind}/${id}/messages`).set(auth)).body.data
            .total_count,
        ).toBeGreaterThan(0),
      );
      world.wrote.add(kind);
    };

    return async function step(operationId: string): Promise<void> {
      const { method, path } = find(operationId);
      const kind = kindOf(path);
      const ids: Record<string, string> = {};
      let fill: (body: unknown, summary?: string) => unknown = (body) => body;
      if (operationId === 'createWhatsappChannel' || operationId === 'createMessangerChannel') {
        await removeChannel(kind as Kind);
      }
      if (path.startsWith('/v1/tools/{id}')) {
        ids.id = await tool(operationId === 'authorizeTool' ? 'google' : 'math');
      } else if (path.startsWith('/v1/scheduler/follow-up/whatsapp/{id}')) {
        ids.id = await followUp();
      } else if (kind && /^\/v1\/channels\/\w+\/\{id\}/.test(path)) {
        ids.id = (await channel(kind)).id;
      } else if (kind && path.startsWith('/v1/webhooks/')) {
        const { id, verification_token } = await channel(kind);
        Object.assign(ids, { channel_id: id, 'hub.verify_token': verification_token });
        if (kind === 'messanger') fill = now;
      }
      if (operationId === 'createWhatsappFollowUp') {
        const { id } = await channel('whatsapp');
        fill = (body) => ({ ...(body as object), channel_id: id });
      }
      // Messenger answers inside the window only, and a message read is one the client wrote: the
      // client writes first (the operations' descriptions say so).
      if (operationId === 'sendMessangerMessage') await write('messanger');
      if (operationId === 'markWhatsappMessageRead') await write('whatsapp');
      if (operationId === 'downloadWhatsappMedia') {
        const mediaId = find(operationId).operation.parameters?.find((p) => p.name === 'media_id');
        graph.addMedia({
          id: String(mediaId?.example ?? mediaId?.schema?.example),
          mimeType: 'image/jpeg',
          size: 2048,
        });
      }
      const answers = await run(operationId, ids, fill);
      const first = Object.values(answers)[0];
      if (operationId === 'createTool') {
        world.tools.math = data(answers['Math.Calculate']).id;
        world.tools.google = data(answers['Google.ListCalendarEvents']).id;
      } else if (operationId === createOf.whatsapp || operationId === createOf.messanger) {
        world.channels[kind as Kind] = data(first);
      } else if (operationId === 'createWhatsappFollowUp') {
        world.followUp = first.body.id as unknown as string;
      } else if (method === 'delete' && path === '/v1/tools/{id}') {
        delete world.tools.math;
      } else if (method === 'delete' && path === '/v1/scheduler/follow-up/whatsapp/{id}') {
        delete world.followUp;
      } else if (method === 'delete' && kind && path === `/v1/channels/${kind}/{id}`) {
        delete world.channels[kind];
        world.wrote.delete(kind);
        if (kind === 'whatsapp') delete world.followUp;
      }
    };
  }

  // The sandbox's operations run with their examples in sandbox.e2e-spec.ts (see above).
  const documentOrder = () =>
    Object.values(doc.paths)
      .flatMap((operations) => Object.values(operations).map((operation) => operation.operationId))
      .filter((operationId) => !SANDBOX_OPERATIONS.includes(operationId));

  it.each([
    ['document order', (ids: string[]) => ids],
    ['reverse order', (ids: string[]) => [...ids].reverse()],
  ])('every operation succeeds with its own examples in %s', async (_order, arrange) => {
    auth = bearer(tokenFor({ org: `org-${randomBytes(6).toString('hex')}` }));
    ran.clear();
    const world: World = { tools: {}, channels: {}, wrote: new Set() };
    const step = walker(world);
    for (const operationId of arrange(documentOrder())) await step(operationId);
    expect([...ran].sort()).toEqual(documentOrder().sort());
    // Leaves the example numbers free for the next walk.
    for (const kind of ['whatsapp', 'messanger'] as const) {
      const existing = world.channels[kind];
      if (existing)
        await t.http().delete(`/v1/channels/${kind}/${existing.id}`).set(auth).expect(204);
    }
  });
});
