import { eventually } from './support/eventually';
import { FakeGraphApi, mediaChunks, mediaSha256 } from './support/fake-graph-api';
import { givenWhatsappChannel } from './support/given';
import { heldBytes } from './support/held-memory';
import { postMultipart } from './support/multipart-upload';
import { listening, rawDownload } from './support/raw-download';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const MiB = 1024 * 1024;
const SIZE = 50 * MiB;

/**
 * A 50 MiB download, and a 50 MiB upload, stream in bounded memory. Download: the client stops
 * reading after 1 MiB. Upload: Meta's side (the fake) stops reading after 1 MiB. Once the other
 * side has stopped (backpressure), the app, the fake and the client (all in this process) hold
 * what they hold, and a full collection leaves only that. A service that buffered the body would
 * have read the whole file meanwhile, and would hold it: 50 MiB more. Kernel socket buffers are
 * not this process's memory, so they do not blur the measure.
 */
describe('WhatsApp media download and upload: memory (e2e)', () => {
  let t: TestApp;
  let fake: FakeGraphApi;

  beforeAll(async () => {
    fake = await FakeGraphApi.start();
    t = await startApp({ GRAPH_API_URL: fake.url });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('holds far less than the file while the client reads slowly, and delivers it whole', async () => {
    const auth = bearer(tokenFor({ org: newOrganization() }));
    const channel = await givenWhatsappChannel(t, auth);
    const media = fake.addMedia({ id: '7391002837465012', mimeType: 'video/mp4', size: SIZE });
    const base = await listening(t.app.getHttpServer());
    const before = heldBytes();

    let held = Number.NaN;
    let sentWhilePaused = 0;
    const res = await rawDownload(
      `${base}/v1/channels/whatsapp/${channel.id}/media/${media.id}`,
      auth,
      (response, received) => {
        const onData = () => {
          if (received() < MiB) return;
          response.off('data', onData);
          response.pause();
          void (async () => {
            sentWhilePaused = await quietSent(fake);
            held = heldBytes() - before;
            response.resume();
          })();
        };
        response.on('data', onData);
      },
    );

    expect(res).toMatchObject({ status: 200, complete: true, bytes: SIZE });
    expect(res.headers['content-length']).toBe(String(SIZE));
    expect(res.sha256).toBe(mediaSha256(media));
    // Streaming holds a few socket and stream buffers; buffering would hold the 50 MiB read.
    expect(sentWhilePaused).toBeGreaterThan(MiB);
    expect(held).toBeLessThan(16 * MiB);
  });

  it('holds far less than the file while Meta reads slowly, and uploads it whole', async () => {
    const auth = bearer(tokenFor({ org: newOrganization() }));
    const channel = await givenWhatsappChannel(t, auth);
    const base = await listening(t.app.getHttpServer());
    const file = { id: 'report.pdf', size: SIZE };
    fake.actions.holdUploadsAfter(MiB);
    const before = heldBytes();

    let written = 0;
    const answer = postMultipart(
      `${base}/v1/channels/whatsapp/${channel.id}/media`,
      auth,
      [
        {
          name: 'file',
          filename: 'report.pdf',
          contentType: 'application/pdf',
          chunks: () => mediaChunks(file),
        },
      ],
      { progress: (bytes) => (written = bytes) },
    );
    const writtenWhileHeld = await quiet(() => written);
    const held = heldBytes() - before;
    fake.actions.release();
    const res = await answer;

    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mime_type: 'application/pdf', size: SIZE });
    expect(fake.actions.uploads[0]).toMatchObject({ bytes: SIZE, sha256: mediaSha256(file) });
    // Backpressure reached the client: it could not write the whole file while Meta waited.
    expect(writtenWhileHeld).toBeLessThan(SIZE / 2);
    // Streaming holds a few socket and stream buffers; buffering would hold the 50 MiB read.
    process.stdout.write(
      `upload of ${SIZE} bytes: ${writtenWhileHeld} written while Meta waited, ${held} bytes more held\n`,
    );
    expect(held).toBeLessThan(16 * MiB);
  });
});

/** A value once it stops growing for a second. */
async function quiet(read: () => number, done = () => false): Promise<number> {
  let last = -1;
  let quietSince = Date.now();
  return eventually(
    async () => {
      const value = read();
      if (value !== last) {
        last = value;
        quietSince = Date.now();
      }
      if (!done() && Date.now() - quietSince < 1000) throw new Error('still growing');
      return value;
    },
    60_000,
    100,
  );
}

/** Meta's bytes sent, once they stop growing for a second (the pipe is full) or all are sent. */
const quietSent = (fake: FakeGraphApi): Promise<number> =>
  quiet(
    () => fake.mediaDownloads[0]?.bytesSent ?? 0,
    () => (fake.mediaDownloads[0]?.bytesSent ?? 0) >= SIZE,
  );
