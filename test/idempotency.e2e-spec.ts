import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { aFollowUp, aTool, aWhatsappChannel } from './support/factories';
import { bearer, newOrganization, startApp, TestApp, tokenFor } from './support/test-app';

const PROBLEM_JSON = /^application\/problem\+json/;

describe('Idempotency-Key (e2e)', () => {
  let t: TestApp;
  let org: string;
  let auth: Record<string, string>;
  beforeAll(async () => (t = await startApp()));
  afterAll(async () => t.close());
  beforeEach(() => {
    org = newOrganization();
    auth = bearer(tokenFor({ org }));
  });

  const post = (path: string, body: object, key?: string, as = auth) => {
    const req = t.http().post(path).set(as);
    return (key === undefined ? req : req.set('Idempotency-Key', key)).send(body);
  };
  const toolCount = async (as = auth) =>
    (await t.http().get('/v1/tools').set(as).expect(200)).body.data.total_count as number;

  it('answers a retried creation with the first answer, and creates once', async () => {
    const key = randomUUID();
    const first = await post('/v1/tools', aTool(), key).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/v1/tools', aTool(), key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await toolCount()).toBe(1);
    // Without a key, a second request is a second tool, as before.
    await post('/v1/tools', aTool()).expect(201);
    expect(await toolCount()).toBe(2);
  });

  it('replays a follow-up creation: the same follow-up, the clients messaged once', async () => {
    const channel = (await post('/v1/channels/whatsapp', aWhatsappChannel()).expect(201)).body.data;
    const key = randomUUID();
    const body = aFollowUp(channel.id);
    const first = await post('/v1/scheduler/follow-up/whatsapp', body, key).expect(201);
    const again = await post('/v1/scheduler/follow-up/whatsapp', body, key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const listed = await t.http().get('/v1/scheduler/follow-ups').set(auth).expect(200);
    expect(listed.body.data.total_count).toBe(1);
  });

  it('refuses the same key with another body: 422 idempotency_key_reused', async () => {
    const key = randomUUID();
    await post('/v1/tools', aTool(), key).expect(201);
    const reused = await post('/v1/tools', aTool({ agent_id: 'agent-2' }), key).expect(422);
    expect(reused.headers['content-type']).toMatch(PROBLEM_JSON);
    expect(reused.body).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    // ...or on another route.
    const elsewhere = await post('/v1/channels/whatsapp', aTool(), key).expect(422);
    expect(elsewhere.body.code).toBe('idempotency_key_reused');
    expect(await toolCount()).toBe(1);
  });

  it("keeps each organization's keys apart", async () => {
    const key = randomUUID();
    await post('/v1/tools', aTool(), key).expect(201);
    const other = bearer(tokenFor());
    const theirs = await post('/v1/tools', aTool(), key, other).expect(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(await toolCount(other)).toBe(1);
  });

  it('answers 409 idempotency_key_in_use while the first request with the key is still running', async () => {
    const key = randomUUID();
    const body = aTool();
    // What a request in flight leaves: its claim, no answer yet, held for another minute.
    const { createHash } = await import('node:crypto');
    const fingerprint = createHash('sha256')
      .update(`POST /v1/tools\n${JSON.stringify(body)}`)
      .digest('base64url');
    await t.app.get(DataSource).query(
      `INSERT INTO idempotency_keys (organization_id, key, fingerprint, created_at, locked_until)
       VALUES ($1, $2, $3, now(), now() + interval '1 minute')`,
      [org, key, fingerprint],
    );
    const busy = await post('/v1/tools', body, key).expect(409);
    expect(busy.body).toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
    expect(await toolCount()).toBe(0);
    // A claim whose holder stopped answering long ago is taken over.
    await t.app
      .get(DataSource)
      .query(
        `UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = $1`,
        [key],
      );
    await post('/v1/tools', body, key).expect(201);
    expect(await toolCount()).toBe(1);
  });

  it('remembers only successes: after an error the same key runs the request again', async () => {
    const key = randomUUID();
    const unknown = aTool({ name: 'NoSuch.Tool' });
    await post('/v1/tools', unknown, key).expect(422);
    await post('/v1/tools', unknown, key).expect(422);
    // The key is free, so a corrected request may use it.
    await post('/v1/tools', aTool(), key).expect(201);
    await post('/v1/tools', aTool(), key).expect(201);
    expect(await toolCount()).toBe(1);
  });

  it('refuses a key that is too long or not printable ASCII', async () => {
    for (const key of ['x'.repeat(256), 'with space', 'ключ']) {
      const res = await t
        .http()
        .post('/v1/tools')
        .set(auth)
        .set('Idempotency-Key', encodeURI(key) === key ? key : Buffer.from(key).toString('latin1'))
        .send(aTool())
        .expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    }
    expect(await toolCount()).toBe(0);
  });

  it('forgets a key after 24 hours', async () => {
    const key = randomUUID();
    await post('/v1/tools', aTool(), key).expect(201);
    await t.app
      .get(DataSource)
      .query(
        `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`,
        [key],
      );
    const later = await post('/v1/tools', aTool(), key).expect(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await toolCount()).toBe(2);
  });
});
