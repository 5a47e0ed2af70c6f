import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/free-port';
import { givenWhatsappChannel, WhatsappChannel } from './support/given';
import { listenOnLoopback } from './support/listening';
import {
  bearer,
  newOrganization,
  startApp,
  TEST_JWT_SECRET,
  TestApp,
  tokenFor,
} from './support/test-app';

const root = join(__dirname, '..');
const tsNode = [require.resolve('ts-node/dist/bin.js'), '--transpile-only'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run simulate -- …` as a child process, in a directory of its own (no .env of the repo). */
function simulate(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const cwd = mkdtempSync(join(tmpdir(), 'agentline-simulate-'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...tsNode, join(root, 'src/cli/simulate.ts'), ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', DATA_DIR: cwd, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number | null) : 0, stdout, stderr }),
    );
  });
}

describe('npm run simulate (e2e)', () => {
  let t: TestApp;
  let url: string;
  const org = newOrganization();
  const token = tokenFor({ org });
  let channel: WhatsappChannel;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startApp({ META_SANDBOX: 'true', SANDBOX_STATUS_DELAY_MS: '50' });
    url = await listenOnLoopback(t);
    channel = await givenWhatsappChannel(t, bearer(token));
    env = { AGENTLINE_URL: url, AGENTLINE_TOKEN: token };
  });
  afterAll(() => t.close());

  const conversation = async (client: string) =>
    (
      await t
        .http()
        .get(`/sandbox/api/conversations/whatsapp/${channel.id}/${client}`)
        .set(bearer(token))
        .expect(200)
    ).body.data as {
      direction: string;
      type: string;
      state: string;
      body: Record<string, unknown>;
    }[];

  it('writes a text as the client, which the channel receives', async () => {
    const run = await simulate(
      ['--channel', channel.id, '--from', '+34612345678', '--text', 'Hi from the terminal'],
      env,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual({
      data: { message_id: expect.stringMatching(/^wamid\./), state: 'received' },
    });
    expect(await conversation('34612345678')).toEqual([
      expect.objectContaining({
        direction: 'from_client',
        type: 'text',
        state: 'received',
        body: expect.objectContaining({ text: { body: 'Hi from the terminal' } }),
      }),
    ]);
  });

  it('uploads an image and sends it by its media id, with a token it mints from --org and --sub', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agentline-image-')), 'box.png');
    writeFileSync(
      file,
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
        'base64',
      ),
    );
    const args = ['--channel', channel.id, '--from', '+34600000003', '--image', file];
    // Without AGENTLINE_TOKEN, --org and --sub mint one as npm run token does.
    const noToken = await simulate(args, { AGENTLINE_URL: url });
    expect(noToken).toMatchObject({ code: 1, stderr: expect.stringMatching(/^No token/) });
    const minted = await simulate(
      [...args, '--caption', 'the box', '--org', org, '--sub', 'alice'],
      { AGENTLINE_URL: url, JWT_SECRET: TEST_JWT_SECRET },
    );
    expect(minted).toMatchObject({ code: 0, stderr: '' });
    const [image] = await conversation('34600000003');
    expect(image).toMatchObject({
      type: 'image',
      body: { image: expect.objectContaining({ mime_type: 'image/png', caption: 'the box' }) },
    });
    const mediaId = (image.body.image as { id: string }).id;
    const download = await t
      .http()
      .get(`/v1/channels/whatsapp/${channel.id}/media/${mediaId}`)
      .set(bearer(token))
      .expect(200);
    expect(Buffer.compare(download.body as Buffer, readFileSync(file))).toBe(0);
  });

  it('prints a refused request as its problem details and exits 1', async () => {
    const unknown = await simulate(
      [
        '--channel',
        '01900000-0000-7000-8000-000000000000',
        '--from',
        '+34612345678',
        '--text',
        'x',
      ],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(
      /^HTTP 404 Not Found: WhatsApp channel was not found\.\n {2}\(code not_found, request_id [\w-]+\)\n$/,
    );
    const otherOrganization = await simulate(
      ['--channel', channel.id, '--from', '+34612345678', '--text', 'x'],
      { ...env, AGENTLINE_TOKEN: tokenFor({ org: newOrganization() }) },
    );
    expect(otherOrganization).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^HTTP 404/),
    });
    const refusedToken = await simulate(
      ['--channel', channel.id, '--from', '+34612345678', '--text', 'x'],
      { ...env, AGENTLINE_TOKEN: 'not-a-token' },
    );
    expect(refusedToken).toMatchObject({ code: 1, stderr: expect.stringMatching(/^HTTP 401/) });
  });

  it('says what is wrong with its own arguments, and when agentline cannot be reached', async () => {
    const help = await simulate(['--help']);
    expect(help).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^usage: npm run simulate/),
    });
    const nothing = await simulate(['--channel', channel.id, '--from', '+34612345678'], env);
    expect(nothing).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/exactly one of --text/),
    });
    const down = await simulate(
      ['--channel', channel.id, '--from', '+34612345678', '--text', 'x'],
      { ...env, AGENTLINE_URL: `http://127.0.0.1:${await freePort()}` },
    );
    expect(down).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^Cannot reach agentline at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/,
      ),
    });
  });
});
