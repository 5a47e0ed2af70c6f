import { createHash, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { eventually } from './support/eventually';
import { FakeGraphApi, graphError, graphErrorReply, mediaChunks } from './support/fake-graph-api';
import { givenMessangerChannel, givenWhatsappChannel, WhatsappChannel } from './support/given';
import { FormPart, multipartLength, postMultipart } from './support/multipart-upload';
import { listening } from './support/raw-download';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const MiB = 1024 * 1024;
const KiB = 1024;
/** Above an image's 5 MB, under a document's 100 MB: both limits can be seen. */
const MAX_BYTES = 8 * MiB;
const TIMEOUT_MS = 1500;

/** A generated file: the same bytes for the same name and size, never held whole. */
const aFile = (
  contentType: string,
  size: number,
  {
    name = 'file',
    filename = 'photo.jpg',
    head,
  }: { name?: string; filename?: string; head?: Buffer } = {},
): FormPart & { sha256: string } => {
  const chunks = function* (): Generator<Buffer> {
    if (head) yield head;
    yield* mediaChunks({ id: filename, size: size - (head?.length ?? 0) });
  };
  const hash = createHash('sha256');
  for (const chunk of chunks()) hash.update(chunk);
  return { name, filename, contentType, chunks, sha256: hash.digest('hex') };
};

/** A WebP file's first bytes: a plain (static) `VP8 ` header, or `VP8X` with the animation flag. */
const webpHead = (animated: boolean): Buffer => {
  const head = Buffer.alloc(30);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(1000, 4);
  head.write(animated ? 'WEBPVP8X' : 'WEBPVP8 ', 8, 'latin1');
  head.writeUInt32LE(10, 16);
  head[20] = animated ? 0x02 : 0x00;
  return head;
};

/** POST /v1/channels/whatsapp/{id}/media against a fake Graph API that checks Meta's upload. */
describe('WhatsApp media upload (e2e)', () => {
  let t: TestApp;
  let fake: FakeGraphApi;
  let base: string;
  let auth: Record<string, string>;
  let channel: WhatsappChannel;
  let token: string;

  beforeAll(async () => {
    fake = await FakeGraphApi.start();
    t = await startApp({
      GRAPH_API_URL: fake.url,
      GRAPH_API_TIMEOUT_MS: String(TIMEOUT_MS),
      MEDIA_MAX_BYTES: String(MAX_BYTES),
    });
    base = await listening(t.app.getHttpServer());
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(async () => {
    fake.reset();
    auth = bearer(tokenFor({ org: newOrganization() }));
    token = `EAAG-upload-${randomUUID()}`;
    channel = await givenWhatsappChannel(t, auth, { access_token: token });
  });

  const upload = (
    parts: FormPart[],
    options: Parameters<typeof postMultipart>[3] = {},
    { channelId = channel.id, as = auth }: { channelId?: string; as?: Record<string, string> } = {},
  ) => postMultipart(`${base}/v1/channels/whatsapp/${channelId}/media`, as, parts, options);
  const expectProblem = (
    res: { status: number; headers: Record<string, unknown>; body: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res).toMatchObject({ status, body: { status, code } });
  };

  describe('uploads to Meta', () => {
    it("streams the file as Meta's multipart (messaging_product, type, file) with the channel's token: 201", async () => {
      const file = aFile('image/jpeg', 300_000);
      const res = await upload([file]);

      expect(res.status).toBe(201);
      const [received] = fake.actions.uploads;
      expect(res.body).toEqual({
        data: { media_id: received.mediaId, mime_type: 'image/jpeg', size: 300_000 },
      });
      expect(received).toMatchObject({
        numberId: channel.number_id,
        accessToken: token,
        fields: { messaging_product: 'whatsapp', type: 'image/jpeg' },
        filename: 'photo.jpg',
        fileType: 'image/jpeg',
        bytes: 300_000,
        sha256: file.sha256,
      });
    });

    it("takes supertest's multipart too, and a type with parameters as its base type", async () => {
      const res = await t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/media`)
        .set(auth)
        .attach('file', Buffer.from('OggS voice note'), {
          filename: 'voice.ogg',
          contentType: 'audio/ogg; codecs=opus',
        })
        .expect(201);
      expect(res.body.data).toMatchObject({ mime_type: 'audio/ogg', size: 15 });
      expect(fake.actions.uploads[0].fields.type).toBe('audio/ogg');
    });

    it("a document of 7 MiB (above an image's limit, under a document's), announced or chunked", async () => {
      const file = aFile('application/pdf', 7 * MiB, { filename: 'Factura Nº 7.pdf' });
      const chunked = await upload([file]);
      expect(chunked.status).toBe(201);
      const announced = await upload([file], { contentLength: multipartLength([file]) });
      expect(announced.status).toBe(201);
      expect(fake.actions.uploads.map((u) => [u.bytes, u.sha256, u.filename])).toEqual([
        [7 * MiB, file.sha256, 'Factura Nº 7.pdf'],
        [7 * MiB, file.sha256, 'Factura Nº 7.pdf'],
      ]);
    });

    it('an animated sticker up to 500 KB', async () => {
      const res = await upload([aFile('image/webp', 400 * KiB, { head: webpHead(true) })]);
      expect(res.status).toBe(201);
    });
  });

  describe('refusals, before or while the bytes arrive', () => {
    it('415 for a body that is not multipart/form-data', async () => {
      const json = await t
        .http()
        .post(`/v1/channels/whatsapp/${channel.id}/media`)
        .set(auth)
        .send({ file: 'aGVsbG8=' })
        .expect(415);
      expect(json.body.code).toBe('unsupported_media_type');
      expect(json.body.detail).toContain('multipart/form-data');
      const raw = await upload([aFile('image/jpeg', 1000)], { contentType: 'image/jpeg' });
      expectProblem(raw, 415, 'unsupported_media_type');
      expect(fake.requests).toBe(0);
    });

    it('400 for a form without a boundary, without a file, with two files or another field', async () => {
      const noBoundary = await upload([aFile('image/jpeg', 1000)], {
        contentType: 'multipart/form-data',
      });
      expectProblem(noBoundary, 400, 'validation_failed');

      const empty = await upload([]);
      expectProblem(empty, 400, 'validation_failed');
      expect(empty.body.errors).toEqual([{ field: 'file', message: expect.any(String) }]);

      const two = await upload([aFile('image/jpeg', 1000), aFile('image/png', 1000)]);
      expectProblem(two, 400, 'validation_failed');
      expect(two.body.errors).toEqual([{ field: 'file', message: 'send exactly one file' }]);

      const misnamed = await upload([aFile('image/jpeg', 1000, { name: 'image' })]);
      expectProblem(misnamed, 400, 'validation_failed');
      expect(misnamed.body.errors).toEqual([{ field: 'image', message: expect.any(String) }]);

      const field = await upload([
        { name: 'type', value: 'image/jpeg' },
        aFile('image/jpeg', 1000),
      ]);
      expectProblem(field, 400, 'validation_failed');
      expect(field.body.errors).toEqual([{ field: 'type', message: expect.any(String) }]);
      // The form's fault is found before Meta has the file (or the upload to Meta is stopped).
      expect(fake.actions.uploads.filter((u) => u.mediaId)).toEqual([]);
    });

    it('415 naming file for a type Meta does not take, without asking Meta', async () => {
      const res = await upload([aFile('image/gif', 1000, { filename: 'cat.gif' })]);
      expectProblem(res, 415, 'unsupported_media_type');
      expect(res.body.detail).toBe('WhatsApp does not take image/gif files.');
      expect(res.body.errors).toEqual([
        { field: 'file', message: expect.stringContaining('image/jpeg, image/png') },
      ]);
      expect(fake.requests).toBe(0);
    });

    it("413 naming Meta's limit for the type: an image over 5 MB, a static sticker over 100 KB, an animated one over 500 KB", async () => {
      const cases: [FormPart, number, string][] = [
        [aFile('image/png', 6 * MiB), 5 * MiB, "Meta's limit for an image"],
        [
          aFile('image/webp', 150 * KiB, { head: webpHead(false) }),
          100 * KiB,
          "Meta's limit for a static sticker",
        ],
        [
          aFile('image/webp', 600 * KiB, { head: webpHead(true) }),
          500 * KiB,
          "Meta's limit for an animated sticker",
        ],
        [aFile('video/mp4', 17 * MiB), MAX_BYTES, 'MEDIA_MAX_BYTES'],
      ];
      for (const [file, limit, which] of cases) {
        const res = await upload([file]);
        expectProblem(res, 413, 'media_too_large');
        expect(res.body.detail).toBe(`The file is larger than ${limit} bytes (${which}).`);
        expect(res.body.errors).toEqual([
          { field: 'file', message: `at most ${limit} bytes (${which})` },
        ]);
      }
      // Meta got the first bytes of each, and the upload was stopped: no media was made.
      expect(fake.actions.uploads.every((u) => u.mediaId === undefined)).toBe(true);
      // The connection still answers: the rest of each body was read and dropped.
      expect((await upload([aFile('image/jpeg', 1000)])).status).toBe(201);
    });

    it('413 at once for a body announced larger than MEDIA_MAX_BYTES, without asking Meta', async () => {
      const file = aFile('application/pdf', MAX_BYTES + 100 * KiB);
      const res = await upload([file], { contentLength: multipartLength([file]) });
      expectProblem(res, 413, 'media_too_large');
      expect(res.body.detail).toBe(`The file is larger than ${MAX_BYTES} bytes (MEDIA_MAX_BYTES).`);
      expect(fake.requests).toBe(0);
    });
  });

  describe('a form that ends too soon or is not a form', () => {
    const BOUNDARY = 'cut-boundary-4e1a';
    const head = (name = 'file') =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    /** Posts these bytes as the whole body (complete for HTTP), announced or chunked. */
    const postRaw = (body: Buffer, chunked: boolean) =>
      new Promise<{ status: number; body: Record<string, unknown> } | 'closed'>((resolve) => {
        const req = request(`${base}/v1/channels/whatsapp/${channel.id}/media`, {
          method: 'POST',
          agent: false,
          headers: {
            ...auth,
            'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
            ...(chunked
              ? { 'transfer-encoding': 'chunked' }
              : { 'content-length': String(body.length) }),
          },
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', () => resolve('closed'));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
            }),
          );
        });
        req.on('error', () => resolve('closed'));
        // In two writes: the server has begun the file when its end comes.
        const half = Math.floor(body.length / 2);
        req.write(body.subarray(0, half));
        setTimeout(() => req.end(body.subarray(half)), 50);
      });
    const fileBytes = (size: number) => Buffer.concat([...mediaChunks({ id: 'cut', size })]);

    it('a body that ends inside the file (announced or chunked): 400 naming file, and the server serves on', async () => {
      const cut = Buffer.concat([Buffer.from(head()), fileBytes(200_000)]);
      for (const chunked of [false, true]) {
        const res = await postRaw(cut, chunked);
        expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
        expect(res !== 'closed' && res.body.errors).toEqual([
          { field: 'file', message: 'the body ends before the file does (no closing boundary)' },
        ]);
      }
      expect(fake.actions.uploads.filter((u) => u.mediaId)).toEqual([]);
      expect((await upload([aFile('image/jpeg', 1000)])).status).toBe(201);
    });

    it('a boundary never closed, a part header without its end, garbage for a form: 400, and the server serves on', async () => {
      const file = fileBytes(50_000);
      const bodies = [
        // The file's line ends, and no boundary comes after it.
        Buffer.concat([Buffer.from(head()), file, Buffer.from('\r\n')]),
        // The file ends, the next part begins and its header never ends.
        Buffer.concat([
          Buffer.from(head()),
          file,
          Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-da`),
        ]),
        // A part header without its end.
        Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filena`),
        // Garbage after the boundary, in place of a part header.
        Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n`), file]),
        // Garbage where the form should be, no boundary at all.
        file,
      ];
      for (const body of bodies) {
        for (const chunked of [false, true]) {
          const res = await postRaw(body, chunked);
          expect(res).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
        }
      }
      expect((await upload([aFile('image/jpeg', 1000)])).status).toBe(201);
    });
  });

  describe('who may upload, and where', () => {
    it("404 for another organization's channel, a Messanger channel or an unknown id, without asking Meta", async () => {
      const file = aFile('image/jpeg', 1000);
      const stranger = bearer(tokenFor({ org: newOrganization() }));
      expectProblem(await upload([file], {}, { as: stranger }), 404, 'not_found');
      const page = await givenMessangerChannel(t, auth);
      expectProblem(await upload([file], {}, { channelId: page.id }), 404, 'not_found');
      expectProblem(await upload([file], {}, { channelId: randomUUID() }), 404, 'not_found');
      expect(fake.requests).toBe(0);
    });

    it('401 without a valid token', async () => {
      expect((await upload([aFile('image/jpeg', 1000)], {}, { as: {} })).status).toBe(401);
    });

    it('a token Graph refuses (190): 422 channel_not_usable and the channel inactive; then 422 without asking', async () => {
      fake.enqueue(graphErrorReply(401, 190, 'Error validating access token'));
      const refused = await upload([aFile('image/jpeg', 1000)]);
      expectProblem(refused, 422, 'channel_not_usable');
      expect(refused.text).not.toContain(token);
      const requests = fake.requests;
      const again = await upload([aFile('image/jpeg', 1000)]);
      expectProblem(again, 422, 'channel_not_usable');
      expect(again.body.detail).toContain('is inactive');
      expect(fake.requests).toBe(requests);
    });
  });

  it('a client that goes away mid-file stops the upload to Meta', async () => {
    // Meta reads slowly; the client gives up after 1 MiB of its 7 MiB file.
    fake.actions.holdUploadsAfter(256 * KiB);
    const gone = new AbortController();
    const answer = upload([aFile('application/pdf', 7 * MiB)], {
      signal: gone.signal,
      progress: (bytes) => (bytes > MiB ? gone.abort() : undefined),
    });
    await expect(answer).rejects.toThrow();
    fake.actions.release();
    await eventually(async () =>
      expect(fake.actions.uploads[0]).toMatchObject({ closedEarly: true }),
    );
    expect(fake.actions.uploads[0].mediaId).toBeUndefined();
    expect(fake.actions.uploads[0].bytes).toBeLessThan(7 * MiB);
  });

  describe("Graph's failures", () => {
    const file = () => aFile('image/jpeg', 200_000);

    it("400: 502 bad_gateway with Meta's message", async () => {
      fake.enqueue(graphErrorReply(400, 131053, 'Media upload error'));
      const res = await upload([file()]);
      expectProblem(res, 502, 'bad_gateway');
      expect(res.body.detail).toBe("Meta's answer cannot be used: Media upload error.");
    });

    it('429 and 500: 503 upstream_unavailable (with Retry-After when Meta gives one)', async () => {
      fake.enqueue({
        status: 429,
        body: graphError(4, 'Too many calls'),
        headers: { 'retry-after': '30' },
      });
      const limited = await upload([file()]);
      expectProblem(limited, 503, 'upstream_unavailable');
      expect(limited.headers['retry-after']).toBe('30');
      fake.enqueue({ status: 500, rawBody: 'oops' });
      expectProblem(await upload([file()]), 503, 'upstream_unavailable');
    });

    it('no answer once the file is sent: 504 upstream_timeout; a cut connection: 503', async () => {
      fake.enqueue('hang');
      const silent = await upload([file()]);
      expectProblem(silent, 504, 'upstream_timeout');
      expect(silent.body.detail).toBe(`Graph API did not answer within ${TIMEOUT_MS} ms.`);
      fake.enqueue('destroy');
      expectProblem(await upload([file()]), 503, 'upstream_unavailable');
    });

    it('garbage, or no id, with 200: 502 bad_gateway', async () => {
      fake.enqueue({ status: 200, rawBody: '<html>ok</html>' });
      expectProblem(await upload([file()]), 502, 'bad_gateway');
      fake.enqueue({ status: 200, body: { success: true } });
      expectProblem(await upload([file()]), 502, 'bad_gateway');
    });
  });

  describe('the fake refuses what Meta refuses', () => {
    const toFake = (path: string, parts: FormPart[]) =>
      postMultipart(`${fake.url}${path}`, { authorization: 'Bearer EAAG-direct' }, parts);
    const postJson = (body: unknown) =>
      fetch(`${fake.url}/106540352242922/messages`, {
        method: 'POST',
        headers: { authorization: 'Bearer EAAG-direct', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('an upload without messaging_product or type, or of a type Meta does not take', async () => {
      const jpeg = aFile('image/jpeg', 1000);
      for (const parts of [
        [{ name: 'type', value: 'image/jpeg' }, jpeg],
        [{ name: 'messaging_product', value: 'whatsapp' }, jpeg],
        [
          { name: 'messaging_product', value: 'whatsapp' },
          { name: 'type', value: 'image/gif' },
          jpeg,
        ],
        [
          { name: 'messaging_product', value: 'whatsapp' },
          { name: 'type', value: 'image/jpeg' },
        ],
      ]) {
        const res = await toFake('/106540352242922/media', parts);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: { code: 100 } });
      }
    });

    it('a read receipt or a sender action with anything Meta does not document', async () => {
      for (const body of [
        { messaging_product: 'whatsapp', status: 'read' },
        { messaging_product: 'whatsapp', status: 'delivered', message_id: 'wamid.X' },
        { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.X', to: '34612345678' },
        {
          messaging_product: 'whatsapp',
          status: 'read',
          message_id: 'wamid.X',
          typing_indicator: { type: 'audio' },
        },
        { recipient: { id: '6543210987654321' }, sender_action: 'typing' },
        {
          recipient: { id: '6543210987654321' },
          sender_action: 'typing_on',
          messaging_type: 'RESPONSE',
        },
      ]) {
        const res = await postJson(body);
        expect(res.status).toBe(400);
      }
      expect(fake.actions.readReceipts).toEqual([]);
      expect(fake.actions.senderActions).toEqual([]);
    });
  });
});
