import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './test-app';

/**
 * Makes a test app listen on a loopback port (startApp does not listen): for what needs a real
 * address, a browser, a child process, the sandbox's stand-in reaching the app. Its base URL.
 */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  const server = t.app.getHttpServer() as Server;
  if (!server.listening) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
