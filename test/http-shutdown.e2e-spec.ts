import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startApp } from './support/test-app';

/** A raw connection to the app, and the moment the server closes it. */
async function open(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, closed };
}

describe('Shutdown of the HTTP server (e2e)', () => {
  // Well under the test helper's 20 s slow-close warning, after which it closes connections itself.
  it('closes connections that carry no request at once: a silent one (a preconnect) and an idle keep-alive one', async () => {
    const t = await startApp({ HTTP_SHUTDOWN_TIMEOUT_MS: '600000' });
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const silent = await open(port);
    const idle = await open(port);
    const answered = new Promise<string>((resolve) => {
      let text = '';
      idle.socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('"status"')) resolve(text);
      });
    });
    idle.socket.write('GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await answered).toMatch(/^HTTP\/1\.1 200 /);
    await t.close();
    await Promise.all([silent.closed, idle.closed]);
  }, 15_000);

  it('refuses a value out of range', async () => {
    await expect(startApp({ HTTP_SHUTDOWN_TIMEOUT_MS: '-1' })).rejects.toThrow(
      /HTTP_SHUTDOWN_TIMEOUT_MS/,
    );
  });
});
