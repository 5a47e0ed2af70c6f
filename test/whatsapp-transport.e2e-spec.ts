import { createServer, IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundMessage, SendOutcome } from '../src/channels/channel-transport';
import { GraphApiClient } from '../src/channels/kinds/meta/graph-api.client';
import { WhatsappTransport } from '../src/channels/kinds/whatsapp/whatsapp.transport';
import { FakeGraphApi, FakeReply, graphError, graphErrorReply } from './support/fake-graph-api';
import { freePort } from './support/free-port';

const TOKEN = 'EAAG-secret-token-123';
const input = {
  numberId: '106540352242922',
  accessToken: TOKEN,
  to: '+5511987654321',
  body: 'Hi!',
};

/** A text through the WhatsApp transport over `graph` (the Graph client classifies the answer). */
const sendText = (graph: GraphApiClient, text: typeof input): Promise<SendOutcome> =>
  send(graph, text, { type: 'text', body: text.body });

const send = (
  graph: GraphApiClient,
  { numberId, accessToken, to }: typeof input,
  message: OutboundMessage,
): Promise<SendOutcome> =>
  new WhatsappTransport(graph).send({ senderId: numberId, accessToken }, to, message);

/** The WhatsApp transport and the Graph API client under it, against real sockets. */
describe('WhatsappTransport over the Graph API client', () => {
  let fake: FakeGraphApi;
  let client: GraphApiClient;

  beforeAll(async () => {
    fake = await FakeGraphApi.start();
    // Answers are immediate; a loaded machine needs the room.
    client = new GraphApiClient({ baseUrl: fake.url, timeoutMs: 1000, connections: 4 });
  });

  afterEach(() => fake.reset());

  afterAll(async () => {
    await client.close();
    await fake.close();
  });

  const sendWith = async (...replies: FakeReply[]): Promise<SendOutcome> => {
    fake.enqueue(...replies);
    return sendText(client, input);
  };

  it('sends the text and returns the wamid', async () => {
    const outcome = await sendText(client, input);

    expect(fake.messages).toHaveLength(1);
    const [message] = fake.messages;
    expect(outcome).toEqual({ kind: 'sent', messageId: message.wamid });
    expect(message.wamid).toMatch(/^wamid\./);
    expect(message).toMatchObject({
      numberId: input.numberId,
      to: '5511987654321',
      body: 'Hi!',
      accessToken: TOKEN,
    });
  });

  it('sends exactly the documented request', async () => {
    const raw = await captureRequest(async (baseUrl) => {
      const bare = new GraphApiClient({ baseUrl: `${baseUrl}/v23.0/`, timeoutMs: 1000 });
      try {
        expect(
          await sendText(bare, {
            ...input,
            numberId: 'id/with space',
            body: 'Olá, "mundo"\nlinha 2',
          }),
        ).toEqual({ kind: 'sent', messageId: 'wamid.1' });
      } finally {
        await bare.close();
      }
    });

    expect(raw.method).toBe('POST');
    expect(raw.url).toBe('/v23.0/id%2Fwith%20space/messages');
    expect(raw.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(raw.headers['content-type']).toBe('application/json');
    expect(JSON.parse(raw.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511987654321',
      type: 'text',
      text: { body: 'Olá, "mundo"\nlinha 2', preview_url: false },
    });
  });

  it('sends a template with its body parameters, and the fake reads them back', async () => {
    const outcome = await send(client, input, {
      type: 'template',
      name: 'appointment_reminder',
      languageCode: 'pt_BR',
      bodyParameters: ['Ana', 'amanhã às 10h'],
    });

    expect(fake.messages).toHaveLength(1);
    const [message] = fake.messages;
    expect(outcome).toEqual({ kind: 'sent', messageId: message.wamid });
    expect(message).toMatchObject({
      numberId: input.numberId,
      to: '5511987654321',
      template: {
        name: 'appointment_reminder',
        languageCode: 'pt_BR',
        bodyParameters: ['Ana', 'amanhã às 10h'],
      },
    });
  });

  it('sends exactly the documented template request, without a body component when it has no parameters', async () => {
    const template = (bodyParameters: string[]): OutboundMessage => ({
      type: 'template',
      name: 'hello_world',
      languageCode: 'en_US',
      bodyParameters,
    });
    const raw = await captureRequest(async (baseUrl) => {
      const bare = new GraphApiClient({ baseUrl: `${baseUrl}/v23.0`, timeoutMs: 1000 });
      try {
        expect(await send(bare, input, template(['x']))).toEqual({
          kind: 'sent',
          messageId: 'wamid.1',
        });
      } finally {
        await bare.close();
      }
    });
    expect(JSON.parse(raw.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511987654321',
      type: 'template',
      template: {
        name: 'hello_world',
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: 'x' }] }],
      },
    });

    expect(await send(client, input, template([]))).toMatchObject({ kind: 'sent' });
    expect(fake.messages[0].template).toEqual({
      name: 'hello_world',
      languageCode: 'en_US',
      bodyParameters: [],
    });
  });

  it('classifies a template Meta refuses as permanent, keeping its code and message', async () => {
    fake.enqueue(graphErrorReply(404, 132001, 'Template name does not exist in the translation'));
    const outcome = await send(client, input, {
      type: 'template',
      name: 'missing',
      languageCode: 'en',
      bodyParameters: [],
    });

    expect(outcome).toEqual({
      kind: 'permanent',
      code: '132001',
      message: 'Template name does not exist in the translation',
    });
  });

  it.each(['..', '.', ''])(
    'refuses the number id %p without calling Graph: it would change the path',
    async (numberId) => {
      const outcome = await sendText(client, { ...input, numberId });
      expect(outcome).toMatchObject({ kind: 'permanent', code: 'invalid_request' });
      expect(fake.messages).toHaveLength(0);
    },
  );

  it.each([
    ['HTTP 500', { status: 500, body: graphError(131000, 'Something went wrong') }, '131000'],
    ['HTTP 500 without a body', { status: 500 }, 'http_500'],
    ['HTTP 429', { status: 429, body: {} }, 'http_429'],
    ['code 1', graphErrorReply(400, 1, 'An unknown error occurred'), '1'],
    ['code 2', graphErrorReply(400, 2, 'Service temporarily unavailable'), '2'],
    ['code 4', graphErrorReply(400, 4, 'Application request limit reached'), '4'],
    ['code 80007', graphErrorReply(400, 80007, 'Rate limit issues'), '80007'],
    ['code 130429', graphErrorReply(400, 130429, 'Rate limit hit'), '130429'],
    ['code 131016', graphErrorReply(400, 131016, 'Service unavailable'), '131016'],
    ['code 131056', graphErrorReply(400, 131056, 'Pair rate limit hit'), '131056'],
    ['is_transient', graphErrorReply(400, 12345, 'Try later', { is_transient: true }), '12345'],
  ] as const)('classifies %s as transient', async (_name, reply, code) => {
    const outcome = await sendWith(reply);

    expect(outcome).toMatchObject({ kind: 'transient', code });
    expect(outcome).not.toHaveProperty('retryAfterMs');
    expect(fake.messages).toHaveLength(0);
  });

  it('reads Retry-After on a 503 as seconds and on a 429 as an HTTP date', async () => {
    expect(await sendWith({ status: 503, headers: { 'Retry-After': '7' } })).toEqual({
      kind: 'transient',
      code: 'http_503',
      message: 'Graph API answered HTTP 503',
      retryAfterMs: 7000,
    });

    const later = new Date(Date.now() + 30_000).toUTCString();
    const outcome = await sendWith({ status: 429, body: {}, headers: { 'retry-after': later } });
    expect(outcome.kind).toBe('transient');
    const retryAfterMs = outcome.kind === 'transient' ? outcome.retryAfterMs : undefined;
    expect(retryAfterMs).toBeGreaterThan(25_000);
    expect(retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('keeps Graph message and details of a transient error', async () => {
    const outcome = await sendWith(
      graphErrorReply(
        400,
        131056,
        '(#131056) (Business Account, Consumer Account) pair rate limit hit',
        {
          error_data: { messaging_product: 'whatsapp', details: 'Too many messages to this user' },
        },
      ),
    );

    expect(outcome).toEqual({
      kind: 'transient',
      code: '131056',
      message:
        '(#131056) (Business Account, Consumer Account) pair rate limit hit (Too many messages to this user)',
    });
  });

  it('classifies code 190 and a bare 401 as token_rejected', async () => {
    expect(
      await sendWith(
        graphErrorReply(400, 190, 'Error validating access token: Session has expired'),
      ),
    ).toEqual({
      kind: 'token_rejected',
      code: '190',
      message: 'Error validating access token: Session has expired',
    });
    expect(await sendWith({ status: 401, rawBody: 'nope' })).toEqual({
      kind: 'token_rejected',
      code: 'http_401',
      message: 'Graph API answered HTTP 401',
    });
  });

  it.each([
    [401, 0, 'AuthException'],
    [400, 102, 'API Session'],
    [403, 190, 'Invalid OAuth access token'],
  ])('classifies HTTP %i code %i as token_rejected', async (status, code, message) => {
    expect(await sendWith(graphErrorReply(status, code, message))).toEqual({
      kind: 'token_rejected',
      code: String(code),
      message,
    });
  });

  it('is token_rejected when the fake rejects a request without a token', async () => {
    const outcome = await sendText(client, { ...input, accessToken: '' });

    expect(outcome).toMatchObject({ kind: 'token_rejected', code: '190' });
  });

  it.each([
    [400, 100, '(#100) Invalid parameter'],
    [400, 131026, 'Message undeliverable'],
    [403, 10, 'Permission denied'],
    [403, 200, 'Requires whatsapp_business_messaging permission'],
    [400, 131048, 'Spam rate limit hit'],
  ])(
    'classifies HTTP %i code %i as permanent, keeping code and message',
    async (status, code, message) => {
      expect(await sendWith(graphErrorReply(status, code, message))).toEqual({
        kind: 'permanent',
        code: String(code),
        message,
      });
    },
  );

  it('classifies 131047 for a text as resend_as_template, and for a template as permanent', async () => {
    expect(await sendWith(graphErrorReply(400, 131047, 'Re-engagement message'))).toEqual({
      kind: 'resend_as_template',
      code: '131047',
      message: 'Re-engagement message',
    });
    fake.enqueue(graphErrorReply(400, 131047, 'Re-engagement message'));
    const template: OutboundMessage = {
      type: 'template',
      name: 'n',
      languageCode: 'en',
      bodyParameters: [],
    };
    expect(await send(client, input, template)).toEqual({
      kind: 'permanent',
      code: '131047',
      message: 'Re-engagement message',
    });
  });

  it('classifies a 4xx without a Graph body by its status', async () => {
    expect(await sendWith({ status: 404, rawBody: 'Not Found' })).toEqual({
      kind: 'permanent',
      code: 'http_404',
      message: 'Graph API answered HTTP 404',
    });
  });

  it('classifies an HTML 502 page by its status', async () => {
    const outcome = await sendWith({
      status: 502,
      rawBody: '<html><body><h1>502 Bad Gateway</h1></body></html>',
      headers: { 'content-type': 'text/html' },
    });

    expect(outcome).toEqual({
      kind: 'transient',
      code: 'http_502',
      message: 'Graph API answered HTTP 502',
    });
  });

  it('treats a 2xx with an unreadable body as sent without an id', async () => {
    expect(await sendWith({ status: 200, rawBody: '{"messages": [' })).toEqual({
      kind: 'sent',
      messageId: null,
    });
    expect(await sendWith({ status: 200, body: { messages: [] } })).toEqual({
      kind: 'sent',
      messageId: null,
    });
    expect(await sendWith({ status: 201 })).toEqual({ kind: 'sent', messageId: null });
  });

  it('times out a slow answer before it arrives', async () => {
    // The order of two timers in this process, not a wall-clock bound: the 1 s time-out fires
    // before the fake's 5 s delay however loaded the machine is (the answer would be `sent`).
    const outcome = await sendWith({ status: 200, body: {}, delayMs: 5000 });

    expect(outcome).toEqual({
      kind: 'transient',
      code: 'timeout',
      message: 'Graph API did not answer within 1000 ms',
    });
  });

  it('times out a hanging server and survives a dropped connection', async () => {
    expect(await sendWith('hang')).toMatchObject({ kind: 'transient', code: 'timeout' });
    expect(await sendWith('destroy')).toMatchObject({ kind: 'transient', code: 'network_error' });
    expect(await sendText(client, input)).toMatchObject({ kind: 'sent' });
  });

  it('is transient when nothing listens', async () => {
    const port = await freePort();
    const refused = new GraphApiClient({
      baseUrl: `http://127.0.0.1:${port}/v23.0`,
      timeoutMs: 500,
    });
    try {
      const outcome = await sendText(refused, input);

      expect(outcome).toMatchObject({ kind: 'transient', code: 'network_error' });
      expect(outcome.kind !== 'sent' && outcome.message).toContain('ECONNREFUSED');
    } finally {
      await refused.close();
    }
  });

  it('never puts the token in a code or message, and truncates long messages', async () => {
    const outcome = await sendWith(
      graphErrorReply(400, 100, `Bad token ${TOKEN} ${'x'.repeat(1000)}`),
    );

    expect(outcome.kind).toBe('permanent');
    const message = outcome.kind === 'permanent' ? outcome.message : '';
    expect(message).not.toContain(TOKEN);
    expect(message).toContain('[redacted]');
    expect(message.length).toBeLessThanOrEqual(500);
  });

  it('rejects an unusable token locally instead of throwing', async () => {
    const outcome = await sendText(client, { ...input, accessToken: 'abc\r\nX-Evil: 1' });

    expect(outcome).toMatchObject({ kind: 'permanent', code: 'invalid_request' });
    expect(JSON.stringify(outcome)).not.toContain('X-Evil');
    expect(fake.requests).toBe(0);
  });

  it('reuses a few keep-alive sockets for many sequential sends', async () => {
    for (let i = 0; i < 50; i += 1) {
      expect(await sendText(client, input)).toMatchObject({ kind: 'sent' });
    }

    expect(fake.requests).toBe(50);
    expect(fake.connections).toBeLessThanOrEqual(2);
  });

  it('keeps concurrent sends within the connection limit', async () => {
    // The timeout covers waiting for a free socket too, so leave room for 5 rounds of 20 ms.
    const pooled = new GraphApiClient({ baseUrl: fake.url, timeoutMs: 5000, connections: 4 });
    fake.respondWith(() => ({ status: 200, body: { messages: [{ id: 'wamid.x' }] }, delayMs: 20 }));
    try {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => sendText(pooled, input)));

      expect(outcomes.every((outcome) => outcome.kind === 'sent')).toBe(true);
      expect(fake.connections).toBeLessThanOrEqual(4);
    } finally {
      await pooled.close();
    }
  });

  it('does not throw after close', async () => {
    const closed = new GraphApiClient({ baseUrl: fake.url, timeoutMs: 200 });
    await closed.close();
    await closed.close();

    expect(await sendText(closed, input)).toMatchObject({
      kind: 'transient',
      code: 'network_error',
    });
  });
});

interface RawRequest {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Runs `send` against a bare server that records the raw request. */
async function captureRequest(send: (baseUrl: string) => Promise<unknown>): Promise<RawRequest> {
  let captured: RawRequest | undefined;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      captured = { method: req.method, url: req.url, headers: req.headers, body };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"messages":[{"id":"wamid.1"}]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await send(`http://127.0.0.1:${port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  if (!captured) {
    throw new Error('No request reached the server');
  }
  return captured;
}
