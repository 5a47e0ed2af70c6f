import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { eventually } from './support/eventually';
import { aFollowUp, aTool } from './support/factories';
import { freePort } from './support/free-port';
import { givenWhatsappChannel } from './support/given';
import { ServiceProcess } from './support/service-process';
import {
  bearer,
  createTestDatabase,
  newOrganization,
  startApp,
  TestApp,
  tokenFor,
} from './support/test-app';

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
    const channel = await givenWhatsappChannel(t, auth);
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

  /** The same JSON value written with every object's keys in reverse order. */
  const reversedKeys = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(reversedKeys)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.entries(value)
              .reverse()
              .map(([name, inner]) => [name, reversedKeys(inner)]),
          )
        : value;

  it('compares bodies as JSON: fields in another order, spacing and number spelling are the same request', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const key = randomUUID();
    const body = aFollowUp(channel.id, {
      template: { name: 'check_in', language: 'en', parameters: ['{{title}}', 'Ana'] },
    });
    const path = '/v1/scheduler/follow-up/whatsapp';
    const first = await post(path, body, key).expect(201);
    const reordered = JSON.stringify(reversedKeys(body), null, 2);
    expect(Object.keys(JSON.parse(reordered) as object)[0]).not.toBe(Object.keys(body)[0]);
    const again = await t
      .http()
      .post(path)
      .set(auth)
      .set('Idempotency-Key', key)
      .set('Content-Type', 'application/json')
      .send(reordered)
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    // Arrays keep their order: the clients in another order are another request.
    const swapped = { ...body, client_phone_numbers: [...body.client_phone_numbers].reverse() };
    const refused = await post(path, swapped, key).expect(422);
    expect(refused.body.code).toBe('idempotency_key_reused');
    const listed = await t.http().get('/v1/scheduler/follow-ups').set(auth).expect(200);
    expect(listed.body.data.total_count).toBe(1);

    // Spacing and order aside, a changed value is another request.
    const toolKey = randomUUID();
    const tool = async (raw: string) =>
      t
        .http()
        .post('/v1/tools')
        .set(auth)
        .set('Idempotency-Key', toolKey)
        .set('Content-Type', 'application/json')
        .send(raw);
    expect((await tool('{"agent_id":"agent-1","name":"Math.Calculate"}')).status).toBe(201);
    const spaced = await tool('{ "name" : "Math.Calculate",\n  "agent_id" : "agent-1" }');
    expect(spaced.status).toBe(201);
    expect(spaced.headers['idempotent-replayed']).toBe('true');
    expect((await tool('{"name":"Math.Calculate","agent_id":"agent-2"}')).status).toBe(422);
    expect(await toolCount()).toBe(1);
  });

  it('still replays a key stored before bodies were compared as JSON (its fingerprint of the body in the order it came)', async () => {
    const key = randomUUID();
    const body = { name: 'Math.Calculate', agent_id: 'agent-1' };
    const first = await post('/v1/tools', body, key).expect(201);
    // What the previous version stores and compares, `fingerprint`, is still the hash of the body
    // as JSON.stringify wrote it; a key it stored has no canonical fingerprint.
    const asSent = createHash('sha256')
      .update(`POST /v1/tools\n${JSON.stringify(body)}`)
      .digest('base64url');
    const db = t.app.get(DataSource);
    const [stored] = (await db.query(
      'SELECT fingerprint FROM idempotency_keys WHERE organization_id = $1 AND key = $2',
      [org, key],
    )) as { fingerprint: string }[];
    expect(stored.fingerprint).toBe(asSent);
    await db.query(
      'UPDATE idempotency_keys SET canonical_fingerprint = NULL WHERE organization_id = $1 AND key = $2',
      [org, key],
    );
    const again = await post('/v1/tools', body, key).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // A hash cannot be reordered: such a key keeps the comparison it was stored with, for the
    // rest of its 24 hours (a retry sends what the first request sent).
    await post('/v1/tools', reversedKeys(body) as object, key).expect(422);
    await post('/v1/tools', { ...body, agent_id: 'agent-2' }, key).expect(422);
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
    // What a request in flight leaves: its claim, no answer yet, held for another minute. (Its
    // fingerprint as the previous version wrote it: a claim taken before an upgrade is honoured.)
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
    expect(busy.headers['retry-after']).toBe('1');
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

  /**
   * What a process killed after committing the work but before storing its answer leaves: the
   * resource and its key's record of it, no answer. (The same crash with a real kill -9 is in
   * replicas.e2e-spec.ts, on PostgreSQL.)
   */
  const loseTheAnswer = (key: string, lockedFor: 'a minute more' | 'expired') =>
    t.app.get(DataSource).query(
      `UPDATE idempotency_keys SET response_status = NULL, response_body = NULL,
         locked_until = now() + ($2 || ' seconds')::interval
       WHERE organization_id = $1 AND key = $3`,
      [org, lockedFor === 'expired' ? '-1' : '60', key],
    );
  const deliveries = async (channelId: string, kind = 'whatsapp') =>
    (await t.http().get(`/v1/channels/${kind}/${channelId}/deliveries`).set(auth).expect(200)).body
      .data;

  it.each(['a minute more', 'expired'] as const)(
    'sends once when the answer was lost after the send was committed (claim held %s)',
    async (lockedFor) => {
      const channel = await givenWhatsappChannel(t, auth);
      const key = randomUUID();
      const message = {
        to: '+34612345678',
        template: { name: 'check_in', language: 'en', parameters: ['Ana'] },
      };
      const path = `/v1/channels/whatsapp/${channel.id}/messages`;
      const first = await post(path, message, key).expect(202);
      await loseTheAnswer(key, lockedFor);
      // Answered at once with the committed delivery (no 409 while the dead request's claim
      // lasts), never queued a second time; then replayed as usual.
      const retried = await post(path, message, key).expect(202);
      expect(retried.headers['idempotent-replayed']).toBe('true');
      expect(retried.body.data.id).toBe(first.body.data.id);
      const again = await post(path, message, key).expect(202);
      expect(again.body).toEqual(retried.body);
      const page = await deliveries(channel.id);
      expect(page.items.map((item: { id: string }) => item.id)).toEqual([first.body.data.id]);
    },
  );

  it('creates a follow-up once when the answer was lost after it was committed', async () => {
    const channel = await givenWhatsappChannel(t, auth);
    const key = randomUUID();
    const body = aFollowUp(channel.id);
    const first = await post('/v1/scheduler/follow-up/whatsapp', body, key).expect(201);
    await loseTheAnswer(key, 'expired');
    const retried = await post('/v1/scheduler/follow-up/whatsapp', body, key).expect(201);
    expect(retried.body.id).toBe(first.body.id);
    const listed = await t.http().get('/v1/scheduler/follow-ups').set(auth).expect(200);
    expect(listed.body.data.total_count).toBe(1);
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

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/**
 * The crash itself: a real process is killed with SIGKILL after its send is committed and while it
 * stores the answer (held there by a trigger on the key's row, so the moment is exact). PGlite
 * serves one process, so this runs on PostgreSQL only.
 */
onPostgres('Idempotency-Key across a crash (e2e, real processes, PostgreSQL)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Client;
  const processes: ServiceProcess[] = [];
  const auth = bearer(tokenFor({ org: 'org-crash' }));

  beforeAll(async () => {
    database = (await createTestDatabase())!;
    db = new Client({ connectionString: database.url });
    await db.connect();
  });
  afterAll(async () => {
    for (const service of processes) {
      service.kill('SIGKILL');
      await service.exited;
    }
    await db.end();
    await database.drop();
  });

  const start = async () => {
    const port = await freePort();
    const service = ServiceProcess.start({
      DATABASE_URL: database.url,
      PORT: String(port),
      LOG_LEVEL: 'info',
      SCHEDULER_ENABLED: 'false',
    });
    processes.push(service);
    await service.waitForOutput('agentline listening');
    return Object.assign(request(`http://127.0.0.1:${port}`), { service });
  };

  it('sends each of 256 keys once when the process is killed mid-burst and every key is retried', async () => {
    await db.query('DELETE FROM deliveries');
    const first = await start();
    const channel = await givenWhatsappChannel({ http: () => first }, auth);
    const path = `/v1/channels/whatsapp/${channel.id}/messages`;
    const keys = Array.from({ length: 256 }, () => randomUUID());
    // The key is the message: deliveries per key are counted from the table.
    const send = (http: ReturnType<typeof request>, key: string) =>
      http
        .post(path)
        .set(auth)
        .set('Idempotency-Key', key)
        .send({
          to: '+34612345678',
          template: { name: 'order_update', language: 'en', parameters: [key] },
        });
    let answered = 0;
    const burst = Promise.all(
      keys.map((key) =>
        send(first, key).then(
          (res) => void (res.status === 202 && answered++),
          () => undefined,
        ),
      ),
    );
    // Killed once some sends are committed and many are in flight.
    await eventually(
      async () => {
        const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM deliveries');
        expect(Number(rows[0].n)).toBeGreaterThanOrEqual(32);
      },
      20_000,
      5,
    );
    first.service.kill('SIGKILL');
    await burst;

    const second = await start();
    let waitedOut = 0;
    for (const key of keys) {
      let res = await send(second, key);
      if (res.status === 409) {
        // Claimed by the dead process before it committed anything: held 2 minutes, then free.
        waitedOut++;
        await db.query(
          `UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = $1`,
          [key],
        );
        res = await send(second, key);
      }
      expect({ key, status: res.status }).toEqual({ key, status: 202 });
    }
    const { rows } = await db.query<{ key: string; n: string }>(
      `SELECT template->'parameters'->>0 AS key, count(*) AS n FROM deliveries GROUP BY 1`,
    );
    const doubled = rows.filter((row) => Number(row.n) > 1);
    process.stdout.write(
      `[measure] kill -9 during 256 idempotent sends: ${answered} answered before the kill, ${waitedOut} held by the dead process, ${rows.length} keys with a delivery, ${doubled.length} sent twice\n`,
    );
    second.service.kill('SIGKILL');
    await second.service.exited;
    expect(rows).toHaveLength(256);
    expect(doubled).toEqual([]);
  }, 120_000);

  it('sends once when the process dies between committing the send and storing its answer', async () => {
    const first = await start();
    const channel = await givenWhatsappChannel({ http: () => first }, auth);
    await db.query(`
      CREATE FUNCTION hold_answer() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_sleep(60); RETURN NEW; END $$;
      CREATE TRIGGER hold_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW
        WHEN (NEW.response_status IS NOT NULL) EXECUTE FUNCTION hold_answer();`);
    const key = randomUUID();
    const path = `/v1/channels/whatsapp/${channel.id}/messages`;
    const message = { to: '+34612345678', text: 'Your order has shipped.' };
    const lost = first
      .post(path)
      .set(auth)
      .set('Idempotency-Key', key)
      .send(message)
      .then(
        () => 'answered',
        () => 'connection lost',
      );
    // The delivery is committed; the answer is being written.
    await eventually(async () => {
      const { rows } = await db.query(
        `SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'UPDATE idempotency_keys SET response_status%'`,
      );
      expect(rows).toHaveLength(1);
    }, 20_000);
    first.service.kill('SIGKILL');
    await first.service.exited;
    expect(await lost).toBe('connection lost');
    // The dead process's connection goes with it (PostgreSQL notices at its next read; here, now).
    await db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'UPDATE idempotency_keys SET response_status%'`,
    );
    await db.query('DROP TRIGGER hold_answer ON idempotency_keys');

    const second = await start();
    const retried = await second
      .post(path)
      .set(auth)
      .set('Idempotency-Key', key)
      .send(message)
      .expect(202);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    const { rows } = await db.query<{ id: string }>(
      'SELECT id FROM deliveries WHERE channel_id = $1',
      [channel.id],
    );
    expect(rows.map((row) => row.id)).toEqual([retried.body.data.id]);
  }, 90_000);
});
