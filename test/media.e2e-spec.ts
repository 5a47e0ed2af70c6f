import { createHash, randomUUID } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { Response } from 'superagent';
import { eventually } from './support/eventually';
import {
  FakeGraphApi,
  FakeMedia,
  graphError,
  graphErrorReply,
  mediaSha256,
} from './support/fake-graph-api';
import { givenMessangerChannel, givenWhatsappChannel } from './support/given';
import * as meta from './support/meta-payloads';
import { forWhatsappNumber, postToWebhook } from './support/meta-webhooks';
import { listening, rawDownload } from './support/raw-download';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const MAX_BYTES = 1024 * 1024;
const META_SECRET = 'meta-app-secret-for-media';
/** Graph's time-out, and the download's idle time-out; the hanging fakes wait past it. */
const TIMEOUT_MS = 2000;

/** GET /v1/channels/whatsapp/{id}/media/{media_id} against a fake Graph API on loopback. */
describe('WhatsApp media download (e2e)', () => {
  let t: TestApp;
  let fake: FakeGraphApi;
  let base: string;
  let org: string;
  let auth: Record<string, string>;
  let channelId: string;
  let numberId: string;
  let token: string;

  beforeAll(async () => {
    fake = await FakeGraphApi.start();
    t = await startApp({
      META_APP_SECRET: META_SECRET,
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
    org = newOrganization();
    auth = bearer(tokenFor({ org }));
    token = `EAAG-media-${randomUUID()}`;
    const channel = await givenWhatsappChannel(t, auth, { access_token: token });
    channelId = channel.id;
    numberId = channel.number_id;
  });

  const mediaPath = (mediaId: string, channel = channelId) =>
    `/v1/channels/whatsapp/${channel}/media/${mediaId}`;
  const getMedia = (mediaId: string, as = auth) =>
    t.http().get(mediaPath(mediaId)).set(as).buffer(true).parse(binary);
  const aMedia = (overrides: Partial<FakeMedia> = {}): FakeMedia =>
    fake.addMedia({
      id: String(1_000_000_000_000_000 + Math.floor(Math.random() * 1e15)),
      mimeType: 'image/jpeg',
      size: 300_000,
      ...overrides,
    });
  const expectProblem = (
    res: { status: number; headers: IncomingHttpHeaders; body: unknown },
    status: number,
    code: string,
  ) => {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(String(res.body))).toMatchObject({ status, code });
  };

  describe('streams the file', () => {
    it("with Meta's type and length, as an attachment, fetched with the channel's token", async () => {
      const media = aMedia();
      const res = await getMedia(media.id).expect(200);

      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['content-length']).toBe('300000');
      expect(res.headers['content-disposition']).toBe('attachment');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect((res.body as Buffer).length).toBe(300_000);
      expect(sha256(res.body as Buffer)).toBe(mediaSha256(media));
      expect(fake.mediaLookups).toEqual([{ mediaId: media.id, accessToken: token }]);
      expect(fake.mediaDownloads).toMatchObject([{ mediaId: media.id, accessToken: token }]);
    });

    it('chunked when the media host sends no Content-Length, with a text type kept as Meta gave it', async () => {
      const media = aMedia({ mimeType: 'text/plain', contentLength: false, fileSize: '300000' });
      const res = await rawDownload(`${base}${mediaPath(media.id)}`, auth);

      expect(res).toMatchObject({ status: 200, complete: true, bytes: 300_000 });
      expect(res.headers['content-type']).toBe('text/plain');
      expect(res.headers['content-length']).toBeUndefined();
      expect(res.headers['transfer-encoding']).toBe('chunked');
      expect(res.sha256).toBe(mediaSha256(media));
    });

    it("names the file as the client's message named it (RFC 6266 and 8187)", async () => {
      const media = aMedia({ mimeType: 'application/pdf', size: 5000 });
      const document = structuredClone(meta.waDocument);
      const [entry] = document.entry as {
        changes: { value: { messages: { document: Record<string, unknown> }[] } }[];
      }[];
      entry.changes[0].value.messages[0].document.id = media.id;
      entry.changes[0].value.messages[0].document.filename = 'Factura Nº 7.pdf';
      await postToWebhook(
        t,
        'whatsapp',
        channelId,
        forWhatsappNumber(document, numberId),
        META_SECRET,
      ).expect(200);
      const listed = await eventually(async () => {
        const { items } = (
          await t.http().get(`/v1/channels/whatsapp/${channelId}/messages`).set(auth).expect(200)
        ).body.data as { items: { content: { url: string } }[] };
        expect(items).toHaveLength(1);
        return items[0];
      });
      // The item's own URL is the download.
      const res = await rawDownload(listed.content.url.replace(/^https?:\/\/[^/]+/, base), auth);
      expect(res).toMatchObject({ status: 200, complete: true, bytes: 5000 });
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="Factura N_ 7.pdf"; filename*=UTF-8''Factura%20N%C2%BA%207.pdf`,
      );
      // A media id no message carried is offered without a name.
      const unnamed = aMedia({ mimeType: 'application/pdf', size: 10 });
      expect((await getMedia(unnamed.id).expect(200)).headers['content-disposition']).toBe(
        'attachment',
      );
    });
  });

  describe('404 media_not_found', () => {
    it('for a media id Graph does not know (its code 100, subcode 33)', async () => {
      const res = await getMedia('1234567890').expect(404);
      expectProblem(res, 404, 'media_not_found');
      expect(fake.mediaDownloads).toHaveLength(0);
    });

    it('when the media URL has expired (it answers 404)', async () => {
      const media = aMedia({ downloadStatus: 404 });
      expectProblem(await getMedia(media.id).expect(404), 404, 'media_not_found');
      expect(fake.mediaDownloads).toHaveLength(1);
    });
  });

  describe('413 media_too_large over MEDIA_MAX_BYTES', () => {
    it("judged from Graph's file_size, before any download", async () => {
      const media = aMedia({ size: MAX_BYTES + 1 });
      const res = await getMedia(media.id).expect(413);
      expectProblem(res, 413, 'media_too_large');
      expect(JSON.parse(String(res.body)).detail).toBe(
        `The media is ${MAX_BYTES + 1} bytes; this service streams at most ${MAX_BYTES} (MEDIA_MAX_BYTES).`,
      );
      expect(fake.mediaDownloads).toHaveLength(0);
    });

    it("judged from the media URL's Content-Length when Graph gives no file_size", async () => {
      const media = aMedia({ size: 2 * MAX_BYTES, fileSize: null });
      expectProblem(await getMedia(media.id).expect(413), 413, 'media_too_large');
    });

    it('cut while streaming when the media host sends more, unannounced: the client sees a truncated transfer', async () => {
      // The rest never comes: the service's cut is what closes Meta's connection.
      const media = aMedia({
        size: 3 * MAX_BYTES,
        fileSize: null,
        contentLength: false,
        stallAfter: 2 * MAX_BYTES,
      });
      const res = await rawDownload(`${base}${mediaPath(media.id)}`, auth);

      expect(res.status).toBe(200);
      expect(res.complete).toBe(false);
      expect(res.bytes).toBeLessThanOrEqual(MAX_BYTES);
      await eventually(async () => expect(fake.mediaDownloads[0].closedEarly).toBe(true));
      await eventually(async () =>
        expect(t.logs()).toContain(
          `media download cut: the media host sent more than ${MAX_BYTES} bytes`,
        ),
      );
    });
  });

  describe("Meta's failures", () => {
    it('Graph 500: 503 upstream_unavailable', async () => {
      fake.enqueueMediaLookup({ status: 500, body: { error: { message: 'Oops', code: 1 } } });
      expectProblem(await getMedia('123').expect(503), 503, 'upstream_unavailable');
    });

    it("Graph 429: 503 upstream_unavailable with Graph's Retry-After", async () => {
      fake.enqueueMediaLookup({
        status: 429,
        body: graphError(4, 'Application request limit reached'),
        headers: { 'Retry-After': '30' },
      });
      const res = await getMedia('123').expect(503);
      expectProblem(res, 503, 'upstream_unavailable');
      expect(res.headers['retry-after']).toBe('30');
    });

    it('Graph closing the connection: 503 upstream_unavailable', async () => {
      fake.enqueueMediaLookup('destroy');
      expectProblem(await getMedia('123').expect(503), 503, 'upstream_unavailable');
    });

    it('Graph silent past GRAPH_API_TIMEOUT_MS: 504 upstream_timeout', async () => {
      fake.enqueueMediaLookup('hang');
      const res = await getMedia('123').expect(504);
      expectProblem(res, 504, 'upstream_timeout');
      expect(JSON.parse(String(res.body)).detail).toBe(
        `Graph API did not answer within ${TIMEOUT_MS} ms.`,
      );
    });

    it.each([
      ['not JSON', { status: 200, rawBody: '<html>hello</html>' }],
      ['JSON without a url', { status: 200, body: { messaging_product: 'whatsapp', id: '1' } }],
      ['a url that is not one', { status: 200, body: { url: 'not a url', mime_type: 'a/b' } }],
      ['an error it does not expect', graphErrorReply(403, 10, 'Permission denied')],
    ])('Graph answering %s: 502 bad_gateway', async (_what, reply) => {
      fake.enqueueMediaLookup(reply);
      expectProblem(await getMedia('123').expect(502), 502, 'bad_gateway');
      expect(fake.mediaDownloads).toHaveLength(0);
    });

    it('the media host answering 503: 503 upstream_unavailable', async () => {
      const media = aMedia({ downloadStatus: 503 });
      expectProblem(await getMedia(media.id).expect(503), 503, 'upstream_unavailable');
    });

    it('the media host falling silent mid-file: the transfer is cut after the idle time-out', async () => {
      const media = aMedia({ size: 900_000, stallAfter: 64 * 1024 });
      const res = await rawDownload(`${base}${mediaPath(media.id)}`, auth);

      expect(res).toMatchObject({ status: 200, complete: false, bytes: 64 * 1024 });
      await eventually(async () =>
        expect(t.logs()).toContain(
          'media download cut: the media host sent no byte within GRAPH_API_TIMEOUT_MS',
        ),
      );
      await eventually(async () => expect(fake.mediaDownloads[0].closedEarly).toBe(true));
    });

    it('a token Graph refuses (190): 422 channel_not_usable, and the channel is deactivated as a refused send does', async () => {
      fake.enqueueMediaLookup(graphErrorReply(401, 190, 'Error validating access token'));
      const res = await getMedia('123').expect(422);
      expectProblem(res, 422, 'channel_not_usable');
      expect(String(res.body)).not.toContain(token);

      const channel = await t
        .http()
        .get(`/v1/channels/whatsapp/${channelId}`)
        .set(auth)
        .expect(200);
      expect(channel.body.data).toMatchObject({
        status: 'inactive',
        status_reason: { code: '190', message: 'Error validating access token' },
      });
      // Inactive now: Meta is not asked again.
      expectProblem(await getMedia('123').expect(422), 422, 'channel_not_usable');
      expect(fake.mediaLookups).toHaveLength(1);
    });
  });

  describe('where the token goes', () => {
    let foreign: Server;
    let foreignUrl: string;
    const seenByForeign: IncomingHttpHeaders[] = [];

    beforeAll(async () => {
      foreign = createServer((req, res) => {
        seenByForeign.push(req.headers);
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end('stolen');
      });
      foreignUrl = await listening(foreign);
    });
    afterAll(() => new Promise<void>((resolve) => foreign.close(() => resolve())));
    beforeEach(() => (seenByForeign.length = 0));

    it("refuses a media URL on a host that is not Meta's (nor Graph's own), without sending it the token", async () => {
      const media = aMedia({ url: `${foreignUrl}/whatsapp_business/attachments/?mid=1` });
      const res = await getMedia(media.id).expect(502);
      expectProblem(res, 502, 'bad_gateway');
      expect(JSON.parse(String(res.body)).detail).toContain("which is not Meta's media host");
      expect(seenByForeign).toHaveLength(0);
    });

    it.each([
      'https://lookaside.fbsbx.com.evil.example/whatsapp_business/attachments/?mid=1',
      'http://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1',
      'https://lookaside.fbsbx.com:8443/whatsapp_business/attachments/?mid=1',
      'https://user:pass@lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1',
    ])('refuses %s', async (url) => {
      const media = aMedia({ url });
      expectProblem(await getMedia(media.id).expect(502), 502, 'bad_gateway');
    });

    it('follows no redirect from the media URL', async () => {
      const media = aMedia({
        downloadStatus: 302,
        downloadHeaders: { location: `${foreignUrl}/x` },
      });
      const res = await getMedia(media.id).expect(502);
      expectProblem(res, 502, 'bad_gateway');
      expect(JSON.parse(String(res.body)).detail).toContain('redirects are not followed');
      expect(seenByForeign).toHaveLength(0);
    });
  });

  describe('who may ask, and for what', () => {
    it("answers 404 for another organization's channel, without asking Meta", async () => {
      const media = aMedia();
      const other = bearer(tokenFor({ org: newOrganization() }));
      const res = await getMedia(media.id, other).expect(404);
      expectProblem(res, 404, 'not_found');
      expect(fake.requests).toBe(0);
    });

    it('answers 404 for a Messanger channel, an unknown id or one that is not a uuid', async () => {
      const messanger = await givenMessangerChannel(t, auth);
      for (const id of [messanger.id, randomUUID(), 'nope']) {
        const res = await t.http().get(mediaPath('123', id)).set(auth).buffer(true).parse(binary);
        expect(res.status).toBe(404);
      }
      expect(fake.requests).toBe(0);
    });

    it('answers 401 without a valid token', async () => {
      const media = aMedia();
      expectProblem(
        await getMedia(media.id, bearer(tokenFor({ org, secret: 'x'.repeat(40) }))).expect(401),
        401,
        'unauthorized',
      );
      expect(fake.requests).toBe(0);
    });

    it.each([
      '..%2F..%2Fme',
      '%2e%2e',
      '..',
      '123%2Fmessages',
      'a.b',
      '123%3Ffields%3Dx',
      `${'1'.repeat(129)}`,
    ])('refuses the media id %s with 400, without asking Meta', async (mediaId) => {
      const res = await getMedia(mediaId).expect(400);
      expectProblem(res, 400, 'validation_failed');
      expect(fake.requests).toBe(0);
    });

    it('stops the download from Meta when the client goes away', async () => {
      const media = aMedia({ size: 900_000, stallAfter: 128 * 1024 });
      const res = await rawDownload(`${base}${mediaPath(media.id)}`, auth, (response, received) => {
        response.on('data', () => {
          if (received() > 0) response.destroy();
        });
      });
      expect(res.complete).toBe(false);
      await eventually(async () => expect(fake.mediaDownloads[0].closedEarly).toBe(true));
    });
  });
});

/** supertest's parser for a body kept as bytes. */
function binary(res: Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
