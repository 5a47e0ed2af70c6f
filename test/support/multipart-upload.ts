import { request } from 'node:http';

/** A part of a multipart/form-data body: a field's value, or a file whose bytes are generated. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; chunks: () => Iterable<Buffer> };

export interface UploadAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  text: string;
}

/**
 * POSTs a multipart/form-data body over a raw HTTP request, written as the server reads it
 * (awaiting 'drain'), so that a big file costs this process no memory. Chunked unless
 * `contentLength` says otherwise. `progress` is told the bytes written so far.
 */
export function postMultipart(
  url: string,
  headers: Record<string, string>,
  parts: FormPart[],
  {
    boundary = 'test-boundary-7d91f2',
    contentLength,
    contentType = `multipart/form-data; boundary=${boundary}`,
    progress,
    signal,
  }: {
    boundary?: string;
    contentLength?: number;
    contentType?: string;
    progress?: (bytes: number) => void;
    /** Aborting it drops the connection, as a client that goes away. */
    signal?: AbortSignal;
  } = {},
): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      signal,
      headers: {
        ...headers,
        'content-type': contentType,
        ...(contentLength === undefined
          ? { 'transfer-encoding': 'chunked' }
          : { 'content-length': String(contentLength) }),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // Not JSON: the text says what came.
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
      });
      res.on('error', reject);
    });
    // After an answer (the server may answer before it read the whole body), an error changes nothing.
    req.on('error', reject);
    void (async () => {
      let written = 0;
      const write = async (chunk: Buffer) => {
        if (req.destroyed) return;
        written += chunk.length;
        progress?.(written);
        if (!req.write(chunk)) {
          await new Promise<void>((go) => {
            const done = () => {
              req.off('drain', done);
              req.off('close', done);
              go();
            };
            req.on('drain', done);
            req.on('close', done);
          });
        }
      };
      for (const part of parts) {
        await write(Buffer.from(partHead(part, boundary)));
        if ('chunks' in part) {
          for (const chunk of part.chunks()) await write(chunk);
          await write(Buffer.from('\r\n'));
        }
      }
      await write(Buffer.from(`--${boundary}--\r\n`));
      if (!req.destroyed) req.end();
    })();
  });
}

/** A part's boundary and headers (a field's value too). */
const partHead = (part: FormPart, boundary: string): string =>
  'value' in part
    ? `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`
    : `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType}\r\n\r\n`;

/** The size of the multipart body `postMultipart` writes for these parts. */
export function multipartLength(parts: FormPart[], boundary = 'test-boundary-7d91f2'): number {
  let length = Buffer.byteLength(`--${boundary}--\r\n`);
  for (const part of parts) {
    length += Buffer.byteLength(partHead(part, boundary));
    if ('chunks' in part) {
      for (const chunk of part.chunks()) length += chunk.length;
      length += 2;
    }
  }
  return length;
}
