import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { eventually } from './support/eventually';
import { issueTrackerTools, McpTestServer } from './support/mcp-test-server';
import { bearer, startApp, TestApp, tokenFor } from './support/test-app';
import { toolRequests } from './support/tool-requests';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the connection. */
  closedAfterMs: number;
  /** How many of the parts the client had written when the server closed the connection. */
  partsWritten: number;
}

/** A client's pace: a part every TICK_MS. */
const TICK_MS = 100;
/** `n` parts of `text` (nothing, by default: the client only waits), one every TICK_MS. */
const drip = (n: number, text = ''): Array<[number, string]> =>
  Array.from({ length: n }, () => [TICK_MS, text]);

/**
 * Speaks HTTP/1.1 over a raw socket: writes each part after its delay (ms), then reads until the
 * server closes the connection. What Node answers before Express sees a request is only visible so.
 * How soon the server closed is judged by the parts the client got to write (its timers and the
 * server's run in this one process, so a loaded machine slows both), not by a wall-clock bound.
 */
async function exchange(port: number, parts: Array<[number, string]>): Promise<RawResponse> {
  const socket = connect(port, '127.0.0.1');
  const started = performance.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const closed = new Promise<number>((resolve) =>
    socket.on('close', () => resolve(performance.now() - started)),
  );
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  let partsWritten = 0;
  for (const [delay, text] of parts) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (socket.destroyed) break;
    socket.write(text);
    partsWritten++;
  }
  const closedAfterMs = await closed;
  const raw = Buffer.concat(chunks).toString('utf8');
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: rest.join('\r\n\r\n'),
    closedAfterMs,
    partsWritten,
  };
}

describe('Slow and broken clients (e2e)', () => {
  let t: TestApp;
  let tracker: McpTestServer;
  let port: number;
  const REQUEST_TIMEOUT_MS = 1_000;
  const HEADERS_TIMEOUT_MS = 500;

  beforeAll(async () => {
    tracker = await McpTestServer.start(issueTrackerTools());
    t = await startApp({
      MCP_SERVERS: JSON.stringify([{ id: 'tracker', url: tracker.url }]),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
    await tracker?.close();
  });

  const expectProblem = (res: RawResponse, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers.connection).toBe('close');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(JSON.parse(res.body)).toMatchObject({
      status,
      code,
      type: expect.any(String),
      title: expect.any(String),
    });
  };

  const postHead = (extra: string) =>
    `POST /v1/tools HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${tokenFor()}\r\nContent-Type: application/json\r\n${extra}\r\n`;

  /** Ticks of the client in which the request time-out passes, and 4 times as many. */
  const REQUEST_TICKS = REQUEST_TIMEOUT_MS / TICK_MS;
  const PATIENCE = 4 * REQUEST_TICKS;

  it('answers 408 problem+json to a body sent too slowly, at the request time-out', async () => {
    const res = await exchange(port, [
      [0, postHead('Content-Length: 100\r\n')],
      ...drip(PATIENCE, ' '),
    ]);
    expectProblem(res, 408, 'request_timeout');
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    // Cut off while the client was still sending (Node's own check runs every 30 s).
    expect(res.partsWritten).toBeLessThan(1 + PATIENCE);
  });

  it('answers 408 to a chunked body that never ends', async () => {
    const res = await exchange(port, [
      [0, postHead('Transfer-Encoding: chunked\r\n')],
      [0, '2\r\n{"\r\n'],
      ...drip(PATIENCE),
    ]);
    expectProblem(res, 408, 'request_timeout');
    expect(res.partsWritten).toBeLessThan(2 + PATIENCE);
  });

  it('answers 408 to headers that never end, at the headers time-out', async () => {
    const res = await exchange(port, [
      [0, 'GET /health HTTP/1.1\r\nHost: localhost\r\n'],
      ...drip(PATIENCE),
    ]);
    expectProblem(res, 408, 'request_timeout');
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    // Before the client's ticks reached the request time-out: the headers' own applied. A slow
    // machine delays the client's ticks with the server's check, so it cannot fail this.
    expect(res.partsWritten).toBeLessThan(1 + REQUEST_TICKS);
  });

  it('answers 400 problem+json to a malformed request line', async () => {
    expectProblem(await exchange(port, [[0, 'HELLO THERE\r\n\r\n']]), 400, 'bad_request');
    expectProblem(
      await exchange(port, [[0, 'GET /health HTTP/1.1\r\nHost localhost\r\n\r\n']]),
      400,
      'bad_request',
    );
  });

  it('answers 431 problem+json to oversize headers', async () => {
    const res = await exchange(port, [
      [0, `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`],
    ]);
    expectProblem(res, 431, 'headers_too_large');
  });

  it('closes an idle keep-alive connection after its time-out, and still serves everyone', async () => {
    const res = await exchange(port, [
      [0, 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n'],
      ...drip(PATIENCE),
    ]);
    expect(res.status).toBe(200);
    expect(res.partsWritten).toBeLessThan(1 + PATIENCE);
    await t.http().get('/v1/tools').set(bearer(tokenFor())).expect(200);
  });

  it('lets a handler run past the request time-out once the request is in (a slow tool)', async () => {
    const auth = bearer(tokenFor());
    const { attach, run } = toolRequests(
      () => t,
      () => auth,
    );
    await eventually(async () => {
      const specs = await t.http().get('/v1/tools/specs?toolkit=AcmeIssueTracker').set(auth);
      expect(specs.body.data.items.length).toBeGreaterThan(0);
    }, 30_000);
    const tool = await attach('AcmeIssueTracker.Slow');
    const started = performance.now();
    const result = await run(tool.id, { ms: REQUEST_TIMEOUT_MS + 800 });
    expect(performance.now() - started).toBeGreaterThan(REQUEST_TIMEOUT_MS + 500);
    expect(result).toMatchObject({ status: 'succeeded', output: { value: 'done' } });
  });
});
