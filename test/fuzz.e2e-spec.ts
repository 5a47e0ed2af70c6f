import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { givenFollowUp, givenMessangerChannel, givenWhatsappChannel } from './support/given';
import {
  aWhatsappText,
  messangerNotification,
  postToWebhook,
  whatsappNotification,
} from './support/meta-webhooks';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';
import { providerUrls } from './support/toolkits';

/**
 * Property: whatever JSON, strings or numbers arrive in any operation's body, query or path, the
 * answer is never a 5xx, and every error is problem+json. Runs over every operation of the served
 * OpenAPI document plus the routes it leaves out (OAuth2 callback, /health).
 *
 * FUZZ_RUNS (default 300) and FUZZ_SEED (default 7) make a long run reproducible:
 *   FUZZ_RUNS=20000 npx jest test/fuzz.e2e-spec.ts --selectProjects e2e
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 7);
/** Nothing leaves the machine: every third party points at a closed local port. */
const NOWHERE = 'http://127.0.0.1:9';
const META_SECRET = 'fuzz-meta-app-secret';

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  query: string[];
  body: string[] | undefined;
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { in: string; name: string }[];
        requestBody?: { content: Record<string, { schema: { $ref: string } }> };
      }
    >
  >;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

function operationsOf(document: OpenApi): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const ref = operation.requestBody
        ? Object.values(operation.requestBody.content)[0].schema.$ref
        : undefined;
      const schema = ref ? document.components.schemas[ref.split('/').pop() as string] : undefined;
      operations.push({
        method: method as Operation['method'],
        path,
        query: (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: schema ? Object.keys(schema.properties ?? {}) : undefined,
      });
    }
  }
  operations.push(
    {
      method: 'get',
      path: '/v1/oauth2/callback',
      query: ['state', 'code', 'error'],
      body: undefined,
    },
    { method: 'get', path: '/health', query: [], body: undefined },
  );
  return operations;
}

const hostileStrings = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udc00x',
  '𝒜👋🏽',
  '..',
  '../../user',
  '%00',
  '%',
  '',
  ' ',
  'null',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1.5',
  '1e309',
  '9223372036854775808',
  '-9223372036854775809',
  '8640000000000000',
  '253402300800000',
  '2147483648',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(5_000),
  '[[[[[[[[',
  '{"a":',
  '__proto__',
  'constructor',
);
const text = fc.oneof(
  hostileStrings,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const numbers = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    2 ** 63,
    -(2 ** 63),
    2 ** 31,
    8.64e15,
    8.64e15 + 1,
    Number.MAX_VALUE,
    1e308,
    -0,
    0.5,
    -1,
  ),
);
const key = fc.oneof(
  text,
  fc.constantFrom('__proto__', 'constructor', 'toString', 'input', 'params'),
);
const { value: jsonValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    numbers,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));
/** Percent-encodes anything, a lone surrogate included (as bytes that are not UTF-8). */
const encode = (text: string) =>
  Array.from(text)
    .map((character) => {
      try {
        return encodeURIComponent(character);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');
/** An object of `keys` short keys. */
const wideObject = (keys: number) =>
  Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, i]));
/** `value` inside `depth` levels of objects and arrays. */
const nestedIn = (depth: number, value: unknown): unknown =>
  depth === 0 ? value : nestedIn(depth - 1, depth % 2 ? [value] : { x: value });
const nested = (depth: number, inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('Fuzz: no input gives a 5xx (e2e)', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let operations: Operation[];
  const ids: Record<string, string[]> = { tools: [], whatsapp: [], messanger: [], followUps: [] };
  const stats = { requests: 0, serverErrors: 0, byStatus: new Map<number, number>() };
  const isolation = {
    notifications: 0,
    items: 0,
    retried: 0,
    setAside: new Map<string, number>(),
  };

  beforeAll(async () => {
    t = await startApp({
      RATE_LIMIT_PER_MINUTE: '0',
      GRAPH_API_URL: NOWHERE,
      ...providerUrls({}, NOWHERE),
      TOOL_EXECUTION_TIMEOUT_MS: '2000',
      META_APP_SECRET: META_SECRET,
      // Agent events on (to nowhere): their jsonb payload is where an unpaired surrogate failed.
      AGENT_EVENTS_URL: NOWHERE,
      AGENT_EVENTS_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    });
    auth = bearer(tokenFor());
    operations = operationsOf((await t.http().get('/v1/openapi.json').expect(200)).body as OpenApi);
    // Real resources, so that fuzzed bodies also reach the code behind a found id.
    const specs = await t.http().get('/v1/tools/specs?limit=200').set(auth).expect(200);
    for (const spec of specs.body.data.items as {
      qualified_name: string;
      requirements: { secrets: unknown[]; authorization?: unknown };
    }[]) {
      if (spec.requirements.secrets.length > 0 || spec.requirements.authorization) continue;
      const tool = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .send({ agent_id: 'agent-1', name: spec.qualified_name })
        .expect(201);
      ids.tools.push(tool.body.data.id);
    }
    const whatsapp = await givenWhatsappChannel(t, auth);
    ids.whatsapp.push(whatsapp.id);
    ids.messanger.push((await givenMessangerChannel(t, auth)).id);
    ids.followUps.push((await givenFollowUp(t, auth, whatsapp.id)).id);
  });

  afterAll(async () => {
    const statuses = [...stats.byStatus.entries()].sort(([a], [b]) => a - b);
    console.log(
      `fuzz (seed ${SEED}, ${RUNS} runs, ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'}): ${stats.requests} requests, ${stats.serverErrors} 5xx; statuses ${statuses.map(([s, n]) => `${s}×${n}`).join(' ')}`,
    );
    if (isolation.notifications > 0) {
      console.log(
        `fuzz, per-item isolation (seed ${SEED}): ${isolation.notifications} notifications, ${isolation.items} hostile items, ${isolation.retried} retried; set aside ${[...isolation.setAside].map(([reason, n]) => `${reason}×${n}`).join(' ')}`,
      );
    }
    await t?.close();
  });

  /** Plausible values by field name, so that some requests get past validation. */
  const plausible = (field: string): fc.Arbitrary<unknown> => {
    switch (field) {
      case 'agent_id':
        return fc.constant('agent-1');
      case 'channel_id':
        return fc.constantFrom(...ids.whatsapp, ...ids.messanger);
      case 'name':
        return fc.constantFrom(
          'Math.Calculate',
          'Agentline.PreviewSchedule',
          'Text.CountWords',
          'Nope.Nothing',
        );
      case 'frequency':
        return fc.constantFrom(
          'daily',
          'once',
          'hourly',
          '0 9 * * 1-5',
          'FREQ=WEEKLY;BYDAY=MO',
          'P1D',
          'PT1S',
          '* * * * *',
          'P0D',
        );
      case 'time_zone':
        return fc.constantFrom('UTC', 'Europe/Madrid', 'Mars/Olympus', 'Etc/GMT+14');
      case 'client_phone_numbers':
        return fc.array(fc.oneof(fc.constantFrom('+34612345678', '14155552671'), text), {
          maxLength: 3,
        });
      case 'input':
        return fc.dictionary(
          fc.constantFrom(
            'expression',
            'text',
            'frequency',
            'from',
            'count',
            'time_zone',
            'to',
            'channel_id',
            'follow_up_id',
            'title',
            'prompt',
          ),
          fc.oneof(jsonValue, fc.constantFrom('1+2', 'daily', 'UTC')),
          { maxKeys: 5 },
        );
      case 'from':
      case 'count':
      case 'offset':
      case 'limit':
        return fc.oneof(fc.integer({ min: -2, max: 600 }).map(String), numbers.map(String));
      case 'format':
        return fc.constantFrom('openai', 'anthropic', 'mcp');
      default:
        return text;
    }
  };

  const bodyFor = (
    operation: Operation,
  ): fc.Arbitrary<{ raw: string } | { json: unknown } | undefined> => {
    if (!operation.body) return fc.constant(undefined);
    const fields = operation.body;
    const shaped = fc
      .tuple(
        fc.tuple(
          ...fields.map((field) =>
            fc.option(fc.oneof(plausible(field), jsonValue), { nil: undefined }),
          ),
        ),
        fc.option(fc.dictionary(key, jsonValue, { maxKeys: 2 }), { nil: undefined }),
      )
      .map(([values, extra]) => {
        const body: Record<string, unknown> = { ...extra };
        fields.forEach((field, i) => {
          if (values[i] !== undefined) body[field] = values[i];
        });
        return { json: body };
      });
    return fc.oneof(
      { weight: 6, arbitrary: shaped },
      { weight: 2, arbitrary: jsonValue.map((json) => ({ json })) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.integer({ min: 1, max: 5_000 }), jsonValue)
          .map(([depth, inner]) => ({
            raw: `{"input":${nested(depth, JSON.stringify(inner) ?? 'null')}}`,
          })),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((raw) => ({ raw })) },
      // Objects around the 1,000-key bound, at any depth of any field (free-form ones included):
      // class-transformer's key handling was quadratic (issue 17).
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom(...fields),
            fc.integer({ min: 0, max: 3 }),
            fc.integer({ min: 990, max: 1_200 }),
          )
          .map(([field, depth, keys]) => ({
            json: { [field]: nestedIn(depth, wideObject(keys)) },
          })),
      },
      // Numbers JSON.parse reads as Infinity, and unpaired surrogates written as JSON escapes.
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom(...fields),
            fc.constantFrom('1e400', '-1e999', '"\\ud800"', '{"\\udfff":1}'),
          )
          .map(([field, value]) => ({ raw: `{"${field}":{"a":[${value}]}}` })),
      },
    );
  };

  const idFor = (operation: Operation): fc.Arbitrary<string> => {
    const real = operation.path.startsWith('/v1/tools/')
      ? ids.tools
      : operation.path.includes('/whatsapp/') && operation.path.startsWith('/v1/channels')
        ? ids.whatsapp
        : operation.path.includes('/messanger/')
          ? ids.messanger
          : ids.followUps;
    const random = fc.oneof(text, fc.uuid());
    // A fuzzed DELETE must not remove the resources every other request uses.
    return operation.method === 'delete' ? random : fc.oneof(fc.constantFrom(...real), random);
  };

  const requestFor = (operation: Operation) =>
    fc.record({
      operation: fc.constant(operation),
      id: idFor(operation),
      query: fc.dictionary(
        operation.query.length > 0 ? fc.oneof(fc.constantFrom(...operation.query), key) : key,
        fc.oneof(
          plausible(operation.query[0] ?? 'x'),
          text,
          fc.array(text, { minLength: 2, maxLength: 2 }),
        ),
        { maxKeys: 4 },
      ),
      body: bodyFor(operation),
    });

  it(
    'answers every generated request below 500, errors as problem+json',
    async () => {
      const requests = fc.constantFrom(...operations).chain(requestFor);
      await fc.assert(
        fc.asyncProperty(requests, async ({ operation, id, query, body }) => {
          const search = Object.entries(query)
            .flatMap(([name, value]) =>
              (Array.isArray(value) ? value : [value]).map(
                (item) => `${encode(name)}=${encode(String(item))}`,
              ),
            )
            .join('&');
          const path = `${operation.path.replace('{id}', encode(id))}${search ? `?${search}` : ''}`;
          const agent = t.http();
          let call = agent[operation.method](path).set(auth);
          if (body !== undefined) {
            call = call
              .set('Content-Type', 'application/json')
              .send('raw' in body ? body.raw : (JSON.stringify(body.json) ?? 'null'));
          }
          const res = await call;
          stats.requests++;
          stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
          if (res.status >= 500) stats.serverErrors++;
          expect(res.status).toBeLessThan(500);
          // The OAuth2 callback talks to a browser: its failures are HTML pages by design.
          if (res.status >= 400 && operation.path !== '/v1/oauth2/callback') {
            expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: process.env.FUZZ_SHRINK !== 'true' },
      );
    },
    Math.max(60_000, RUNS * 200),
  );

  /**
   * The MCP endpoint (JSON-RPC, left out of the OpenAPI document): hostile JSON-RPC messages and
   * batches, tool names and arguments. Never a 5xx, nor a JSON-RPC internal error; an HTTP error
   * is problem+json (our guards) or a JSON-RPC error (the transport's).
   */
  it(
    'answers every generated MCP message below 500, never with an internal error',
    async () => {
      const toolNames = fc.constantFrom(
        'Math_Calculate',
        'Agentline_PreviewSchedule',
        'Agentline_ListFollowUps',
        'Agentline_CancelFollowUp',
        'Text_CountWords',
        'Nope_Nothing',
        '_',
        'Math_',
        '_'.repeat(100_000),
      );
      const params = fc.oneof(
        fc.record(
          { name: fc.oneof(toolNames, text), arguments: fc.oneof(plausible('input'), jsonValue) },
          { requiredKeys: [] },
        ),
        fc.record(
          { cursor: fc.oneof(text, fc.constantFrom('TWF0aF9DYWxjdWxhdGU', 'QQ')) },
          { requiredKeys: [] },
        ),
        fc.record({
          protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26'), text),
          capabilities: jsonValue,
          clientInfo: jsonValue,
        }),
        jsonValue,
      );
      const message = fc.record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), text),
          // A constant id: a batch's messages share it (the SDK's second answer once threw).
          id: fc.oneof(fc.integer(), fc.constant(1), text, fc.constant(null), jsonValue),
          method: fc.oneof(
            fc.constantFrom(
              'tools/list',
              'tools/call',
              'initialize',
              'ping',
              'notifications/initialized',
              'constructor',
              '__proto__',
              'toString',
            ),
            text,
          ),
          params,
        },
        { requiredKeys: ['jsonrpc', 'method'] },
      );
      const requests = fc.record({
        agent: fc.oneof(fc.constant('agent-1'), text),
        method: fc.constantFrom('post', 'post', 'post', 'delete') as fc.Arbitrary<
          'post' | 'delete'
        >,
        accept: fc.constantFrom(
          'application/json, text/event-stream',
          'application/json',
          undefined,
        ),
        protocol: fc.option(fc.oneof(fc.constant('2025-06-18'), text), { nil: undefined }),
        body: fc.oneof(
          { weight: 6, arbitrary: message.map((json) => JSON.stringify(json)) },
          {
            weight: 2,
            arbitrary: fc.array(message, { maxLength: 4 }).map((json) => JSON.stringify(json)),
          },
          { weight: 1, arbitrary: jsonValue.map((json) => JSON.stringify(json) ?? 'null') },
          { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
        ),
      });
      await fc.assert(
        fc.asyncProperty(requests, async ({ agent, method, accept, protocol, body }) => {
          const agentPath = `/v1/agents/${encode(agent)}/mcp`;
          const http = t.http();
          let call = (method === 'post' ? http.post(agentPath) : http.delete(agentPath)).set(auth);
          if (accept !== undefined) call = call.set('Accept', accept);
          if (protocol !== undefined) call = call.set('MCP-Protocol-Version', encode(protocol));
          if (method === 'post') call = call.set('Content-Type', 'application/json').send(body);
          const res = await call;
          stats.requests++;
          stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
          if (res.status >= 500) stats.serverErrors++;
          expect(res.status).toBeLessThan(500);
          const answers = [res.body].flat() as { error?: { code: number } }[];
          for (const answer of answers) expect(answer?.error?.code).not.toBe(-32603);
          if (res.status >= 400 && !res.body?.jsonrpc) {
            expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: process.env.FUZZ_SHRINK !== 'true' },
      );
    },
    Math.max(60_000, RUNS * 200),
  );

  describe('per-item isolation of signed webhook notifications', () => {
    const timestamps = fc.oneof(
      fc.constant(String(Math.floor(Date.now() / 1000))),
      text,
      numbers,
      fc.constantFrom('1e20', 1e20, '253402300800', -1, '0x10', 8.64e15),
    );
    /** A WhatsApp message or status, or a Messenger event, built from hostile parts. */
    const whatsappMessage = fc.record(
      {
        from: fc.oneof(fc.constant('34612345678'), text, jsonValue),
        id: fc.oneof(
          fc.uuid().map((id) => `wamid.${id}`),
          text,
          jsonValue,
        ),
        timestamp: timestamps,
        type: fc.oneof(fc.constantFrom('text', 'image', 'reaction'), text, jsonValue),
        text: fc.record({ body: fc.oneof(text, jsonValue) }),
        context: jsonValue,
      },
      { requiredKeys: ['from', 'id', 'timestamp', 'type'] },
    );
    const whatsappStatus = fc.record(
      {
        id: fc.oneof(
          fc.uuid().map((id) => `wamid.${id}`),
          text,
          jsonValue,
        ),
        status: fc.oneof(fc.constantFrom('delivered', 'read', 'failed', 'deleted'), text),
        timestamp: timestamps,
        errors: fc.array(fc.record({ code: jsonValue, title: fc.oneof(text, jsonValue) }), {
          maxLength: 2,
        }),
      },
      { requiredKeys: ['id', 'status', 'timestamp'] },
    );
    const messangerEvent = fc.oneof(
      fc.record({
        timestamp: fc.oneof(fc.constant(Date.now()), numbers, text),
        message: fc.record({
          mid: fc.oneof(
            fc.uuid().map((id) => `m_${id}`),
            text,
            jsonValue,
          ),
          text: fc.oneof(text, jsonValue),
        }),
      }),
      fc.record({
        timestamp: fc.oneof(fc.constant(Date.now()), numbers),
        read: fc.record({ watermark: fc.oneof(numbers, text) }),
      }),
      fc.record({
        delivery: fc.record({ mids: fc.array(fc.oneof(text, jsonValue)), watermark: numbers }),
      }),
      fc.record({ sender: jsonValue, message: fc.record({ mid: text }) }),
    );
    const notification = fc.oneof(
      fc
        .tuple(
          fc.array(whatsappMessage, { maxLength: 3 }),
          fc.array(whatsappStatus, { maxLength: 3 }),
          fc.nat(3),
        )
        .map(([messages, statuses, at]) => ({ kind: 'whatsapp' as const, messages, statuses, at })),
      fc
        .tuple(fc.array(messangerEvent, { minLength: 1, maxLength: 4 }), fc.nat(4))
        .map(([events, at]) => ({ kind: 'messanger' as const, events, at })),
    );

    it(
      'applies the readable message beside hostile items on the first processing, and retries nothing',
      async () => {
        const db = t.app.get(DataSource);
        // Channels of their own: the fuzz above may have changed the shared ones (a PUT can set
        // an app_secret, which then alone verifies that channel, or move its number id).
        const owner = bearer(tokenFor({ org: newOrganization() }));
        const own = {
          whatsapp: await givenWhatsappChannel(t, owner),
          messanger: await givenMessangerChannel(t, owner),
        };
        let sequence = 0;
        await fc.assert(
          fc.asyncProperty(notification, async (generated) => {
            const good = `good-${SEED}-${++sequence}-${Date.now()}`;
            let payload: unknown;
            if (generated.kind === 'whatsapp') {
              const readable = aWhatsappText({ id: good, body: 'readable' });
              const messages = [...generated.messages];
              messages.splice(generated.at % (messages.length + 1), 0, readable);
              payload = whatsappNotification(own.whatsapp.number_id, {
                messages,
                statuses: generated.statuses,
              });
              isolation.items += generated.messages.length + generated.statuses.length;
            } else {
              const events: Record<string, unknown>[] = [...generated.events];
              events.splice(generated.at % (events.length + 1), 0, {
                timestamp: Date.now(),
                message: { mid: good, text: 'readable' },
              });
              payload = messangerNotification(own.messanger.user_id, '6543210987', events);
              isolation.items += generated.events.length;
            }
            const channelId = own[generated.kind].id;
            await postToWebhook(t, generated.kind, channelId, payload, META_SECRET).expect(200);
            isolation.notifications++;
            const [row] = await eventually(async () => {
              const rows = (await db.query(
                `SELECT i.id, i.status, i.attempts FROM webhook_inbox i
                  WHERE i.channel_id = $1 AND EXISTS (
                    SELECT 1 FROM channel_messages m
                     WHERE m.channel_id = i.channel_id AND m.message_id = $2)
                    AND i.status <> 'pending'
                  ORDER BY i.received_at DESC LIMIT 1`,
                [channelId, good],
              )) as { id: string; status: string; attempts: number }[];
              expect(rows).toHaveLength(1);
              return rows;
            });
            if (row.attempts !== 1) isolation.retried++;
            expect(row.attempts).toBe(1);
            const reasons = (await db.query(
              'SELECT reason FROM webhook_items_set_aside WHERE inbox_id = $1',
              [row.id],
            )) as { reason: string }[];
            for (const { reason } of reasons) {
              isolation.setAside.set(reason, (isolation.setAside.get(reason) ?? 0) + 1);
            }
          }),
          {
            numRuns: Math.max(20, Math.floor(RUNS / 3)),
            seed: SEED,
            endOnFailure: process.env.FUZZ_SHRINK !== 'true',
          },
        );
        // Nothing waits for a retry: every notification was settled on its first processing.
        const pending = (await db.query(
          "SELECT count(*)::int AS count FROM webhook_inbox WHERE status = 'pending'",
        )) as { count: number }[];
        expect(pending[0].count).toBe(0);
      },
      Math.max(60_000, RUNS * 200),
    );
  });
});
