import { createServer, get, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, Socket } from 'node:net';
import { HttpConnections } from './http-shutdown';

/** A server whose `/slow` answers only when the test says so, and `/never` never does. */
async function startServer(): Promise<{
  server: Server;
  port: number;
  connections: HttpConnections;
  slow: ServerResponse[];
}> {
  const slow: ServerResponse[] = [];
  const server = createServer((request, response) => {
    if (request.url === '/slow' || request.url === '/never') slow.push(response);
    else response.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  const connections = new HttpConnections(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections, slow };
}

/** A raw connection, and a promise of the moment the server closes it. */
async function rawConnection(
  port: number,
): Promise<{ socket: Socket; closed: Promise<string>; received: () => string }> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, closed, received: () => received };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** A connection whose request (`/slow` unless said) the server holds: the response in flight. */
async function heldRequest(
  port: number,
  slow: ServerResponse[],
  requests = 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n',
): Promise<Awaited<ReturnType<typeof rawConnection>>> {
  const connection = await rawConnection(port);
  connection.socket.write(requests);
  await until(() => slow.length === 1);
  return connection;
}

describe('HttpConnections', () => {
  it('closes a connection that never sent a request (which server.close() alone waits for)', async () => {
    const { port, connections } = await startServer();
    const silent = await rawConnection(port);
    await connections.close(60_000);
    expect(await silent.closed).toBe('');
  });

  it('closes an idle keep-alive connection at once', async () => {
    const { port, connections } = await startServer();
    const idle = await rawConnection(port);
    idle.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => idle.received().endsWith('ok'));
    await connections.close(60_000);
    expect(await idle.closed).toMatch(
      /^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive[\s\S]*ok$/,
    );
  });

  it('lets a response in flight finish, says Connection: close on it, then closes', async () => {
    const { port, connections, slow } = await startServer();
    const busy = await heldRequest(port, slow);
    let serverClosed = false;
    const closing = connections.close(60_000).then(() => (serverClosed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(serverClosed).toBe(false);
    slow[0].end('done');
    await closing;
    const answer = await busy.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toMatch(/Connection: close/);
    expect(answer).toMatch(/done$/);
  });

  it('closes a connection whose answer had begun (keep-alive said) once that answer ends', async () => {
    const { port, connections, slow } = await startServer();
    const busy = await heldRequest(port, slow);
    slow[0].write('part one, ');
    await until(() => busy.received().includes('part one'));
    const closing = connections.close(60_000);
    slow[0].end('part two');
    await closing;
    const answer = await busy.closed;
    expect(answer).toMatch(/Connection: keep-alive/);
    expect(answer).toMatch(/part two\r\n0\r\n\r\n$/);
  });

  it('answers a request pipelined behind a begun answer, then closes the connection', async () => {
    const { port, connections, slow } = await startServer();
    const busy = await heldRequest(
      port,
      slow,
      'GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    slow[0].write('first, ');
    await until(() => busy.received().includes('first'));
    const closing = connections.close(60_000);
    slow[0].end('done');
    await closing;
    const answers = (await busy.closed).split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/Connection: keep-alive[\s\S]*done\r\n0\r\n\r\n$/);
    // Its answer was written (keep-alive) before the shutdown began; the connection closes after it.
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*ok$/);
  });

  it('closes a response that does not end within the time-out', async () => {
    const { port, connections, slow } = await startServer();
    const stuck = await heldRequest(port, slow, 'GET /never HTTP/1.1\r\nHost: x\r\n\r\n');
    slow[0].write('partial');
    await connections.close(100);
    expect(slow[0].writableFinished).toBe(false);
    await stuck.closed;
  });

  it('refuses new connections once closing', async () => {
    const { port, connections, slow } = await startServer();
    await heldRequest(port, slow);
    const closing = connections.close(60_000);
    const refused = await new Promise<string>((resolve) =>
      get(`http://127.0.0.1:${port}/`, () => resolve('answered')).on('error', (error) =>
        resolve((error as NodeJS.ErrnoException).code ?? 'error'),
      ),
    );
    expect(refused).toBe('ECONNREFUSED');
    slow[0].end();
    await closing;
  });

  it('resolves for a server that was never listening', async () => {
    const connections = new HttpConnections(createServer());
    await expect(connections.close(60_000)).resolves.toBeUndefined();
  });
});
