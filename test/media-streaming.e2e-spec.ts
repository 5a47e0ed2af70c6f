import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { eventually } from './support/eventually';
import { FakeGraphApi, mediaSha256 } from './support/fake-graph-api';
import { givenWhatsappChannel } from './support/given';
import { listening, rawDownload } from './support/raw-download';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const MiB = 1024 * 1024;
const SIZE = 50 * MiB;

// A real collection before each measure, so that garbage does not read as held memory.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What this process holds in buffers and on the heap, after a full collection. */
function heldBytes(): number {
  gc();
  const { arrayBuffers, heapUsed } = process.memoryUsage();
  return arrayBuffers + heapUsed;
}

/**
 * A 50 MiB download streams in bounded memory. The client stops reading after 1 MiB; once
 * Meta's side has stopped sending (backpressure), the app, the fake and the client (all in this
 * process) hold what they hold, and a full collection leaves only that. A service that buffered
 * the body would have read the whole file from Meta meanwhile, and would hold it: 50 MiB more.
 * Kernel socket buffers are not this process's memory, so they do not blur the measure.
 */
describe('WhatsApp media download: memory (e2e)', () => {
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
});

/** Meta's bytes sent, once they stop growing for a second (the pipe is full) or all are sent. */
async function quietSent(fake: FakeGraphApi): Promise<number> {
  let last = -1;
  let quietSince = Date.now();
  return eventually(
    async () => {
      const sent = fake.mediaDownloads[0]?.bytesSent ?? 0;
      if (sent !== last) {
        last = sent;
        quietSince = Date.now();
      }
      if (sent < SIZE && Date.now() - quietSince < 1000) throw new Error('still sending');
      return sent;
    },
    60_000,
    100,
  );
}
