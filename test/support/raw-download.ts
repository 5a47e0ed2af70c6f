import { createHash } from 'node:crypto';
import { get, IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A download as a client saw it, without supertest (which buffers and hides a cut transfer). */
export interface RawDownload {
  status: number;
  headers: IncomingHttpHeaders;
  /** Bytes of the body received. */
  bytes: number;
  sha256: string;
  /** The body arrived whole (false: the server cut the transfer). */
  complete: boolean;
  /** The body, when it is 2 MiB or less. */
  body: Buffer;
}

const KEPT_BYTES = 2 * 1024 * 1024;

/** Listens on 127.0.0.1 (if it does not already), and answers the server's base URL. */
export async function listening(server: Server): Promise<string> {
  if (!server.listening) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * GETs a URL and reads the body to its end (or its cut). `onResponse` sees the response first:
 * a test pauses it, or destroys it to play a client that goes away.
 */
export function rawDownload(
  url: string,
  headers: Record<string, string>,
  onResponse?: (response: IncomingMessage, received: () => number) => void,
): Promise<RawDownload> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers, agent: false }, (response) => {
      const hash = createHash('sha256');
      const kept: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
        if (bytes <= KEPT_BYTES) kept.push(chunk);
      });
      // A cut transfer errors ('aborted'); 'close' comes after either way.
      response.on('error', () => undefined);
      response.on('close', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          bytes,
          sha256: hash.digest('hex'),
          complete: response.complete,
          body: Buffer.concat(kept),
        }),
      );
      onResponse?.(response, () => bytes);
    });
    request.on('error', reject);
  });
}
