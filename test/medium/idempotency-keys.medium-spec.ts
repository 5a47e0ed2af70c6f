import { randomUUID } from 'node:crypto';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentEventEntity } from '../../src/agent-events/agent-event.entity';
import { IdempotencyKeys, KEY_LIFETIME_MS } from '../../src/common/idempotency/idempotency-keys';
import { IdempotencyModule } from '../../src/common/idempotency/idempotency.module';
import { MediumModule, startMediumModule } from '../support/medium-module';
import { newOrganization } from '../support/test-app';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * IdempotencyKeys on the real database: the one statement that claims a key, and what its row says
 * to a retry, moved through time with the injected clock.
 */
/** A request whose body was already in key order: both fingerprints are one. */
const same = (fingerprint: string) => ({ raw: fingerprint, canonical: fingerprint });

describe('IdempotencyKeys (medium)', () => {
  let medium: MediumModule;
  let keys: IdempotencyKeys;
  let org: string;

  beforeAll(async () => {
    medium = await startMediumModule({
      // Any table with an id stands for the resource a request creates.
      imports: [IdempotencyModule, TypeOrmModule.forFeature([AgentEventEntity])],
    });
    keys = medium.moduleRef.get(IdempotencyKeys);
  });
  afterAll(async () => medium.close());
  beforeEach(() => {
    org = newOrganization();
  });

  const keyRows = async (organizationId = org) =>
    (await medium.db.query(
      'SELECT key, resource_id, response_status FROM idempotency_keys WHERE organization_id = $1 ORDER BY key',
      [organizationId],
    )) as { key: string; resource_id: string | null; response_status: number | null }[];

  /**
   * A resource as a service creates it: inserted, and recorded under the request's key (none: a
   * plain insert). Answers its id.
   */
  const create = async (key: string | undefined, id: string = randomUUID()) => {
    const at = new Date(medium.clock.now());
    const row = Object.assign(new AgentEventEntity(), {
      id,
      organizationId: org,
      type: 'delivery.updated' as const,
      payload: {},
      attempts: 0,
      nextAttemptAt: at,
      createdAt: at,
    });
    const request = key === undefined ? undefined : { organizationId: org, key, resourceId: null };
    await keys.insertCreated(AgentEventEntity, row, request);
    return id;
  };

  it('claims a new key once: the same request again is in progress, another body reuses it', async () => {
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({
      kind: 'claimed',
      resourceId: null,
    });
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({ kind: 'in_progress' });
    await expect(keys.claim(org, 'k', same('body-b'))).resolves.toEqual({ kind: 'reused' });
    // Keys are per organization: another one claims the same key for itself.
    const other = newOrganization();
    await expect(keys.claim(other, 'k', same('body-b'))).resolves.toMatchObject({
      kind: 'claimed',
    });
    expect(await keyRows()).toEqual([{ key: 'k', resource_id: null, response_status: null }]);
  });

  it('replays the stored answer once the request completed, and only for the same body', async () => {
    await keys.claim(org, 'k', same('body-a'));
    await keys.complete(org, 'k', 201, '{"id":"r1"}');
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({
      kind: 'replay',
      status: 201,
      body: '{"id":"r1"}',
    });
    await expect(keys.claim(org, 'k', same('body-b'))).resolves.toEqual({ kind: 'reused' });
    // Even long after its holder's time (two minutes) the answer stays, for 24 hours.
    medium.clock.advance(KEY_LIFETIME_MS - 1);
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toMatchObject({ kind: 'replay' });
  });

  it('frees a failed request’s key: a retry claims it anew', async () => {
    await keys.claim(org, 'k', same('body-a'));
    await keys.release(org, 'k');
    expect(await keyRows()).toEqual([]);
    await expect(keys.claim(org, 'k', same('body-b'))).resolves.toEqual({
      kind: 'claimed',
      resourceId: null,
    });
  });

  it('lets a retry take over a key whose holder stopped answering, after two minutes only', async () => {
    await keys.claim(org, 'k', same('body-a'));
    medium.clock.advance(2 * MINUTE);
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({ kind: 'in_progress' });
    medium.clock.advance(1);
    // Another body never takes it over: the key is still that request's.
    await expect(keys.claim(org, 'k', same('body-b'))).resolves.toEqual({ kind: 'reused' });
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({
      kind: 'claimed',
      resourceId: null,
    });
    // The take-over holds the key for two minutes of its own.
    medium.clock.advance(MINUTE);
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({ kind: 'in_progress' });
  });

  it('answers a committed resource again when its request stopped before storing the answer', async () => {
    await keys.claim(org, 'k', same('body-a'));
    const id = await create('k');
    // The crash: no complete(). A retry does not wait for the holder's two minutes.
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({
      kind: 'claimed',
      resourceId: id,
    });
    // A failure after the commit does not free the key: the resource exists.
    await keys.release(org, 'k');
    await expect(keys.claim(org, 'k', same('body-a'))).resolves.toEqual({
      kind: 'claimed',
      resourceId: id,
    });
    await expect(keys.claim(org, 'k', same('body-b'))).resolves.toEqual({ kind: 'reused' });
  });

  it('records the resource in the transaction that inserts it: a failed insert names nothing', async () => {
    const taken = await create(undefined);
    await keys.claim(org, 'k', same('body-a'));
    // The same id again: the insert fails on the primary key.
    await expect(create('k', taken)).rejects.toThrow(/duplicate key/);
    expect(await keyRows()).toEqual([{ key: 'k', resource_id: null, response_status: null }]);
    await keys.release(org, 'k');
    expect(await keyRows()).toEqual([]);
  });

  it('forgets a key after 24 hours: the same key is then a new request, resource and all', async () => {
    await keys.claim(org, 'k', same('body-a'));
    await create('k');
    await keys.complete(org, 'k', 201, '{"id":"r1"}');
    medium.clock.advance(KEY_LIFETIME_MS + 1);
    await expect(keys.claim(org, 'k', same('body-b'))).resolves.toEqual({
      kind: 'claimed',
      resourceId: null,
    });
    expect(await keyRows()).toEqual([{ key: 'k', resource_id: null, response_status: null }]);
  });

  /**
   * What the previous version (94c375d) runs to claim a key, word for word: it compares and
   * rewrites `fingerprint` only, the hash of the body as sent.
   */
  const previousVersionClaim = async (key: string, fingerprint: string) => {
    const now = medium.clock.now();
    const claimed = (await medium.db.query(
      `INSERT INTO idempotency_keys (organization_id, key, fingerprint, created_at, locked_until)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (organization_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at,
             locked_until = EXCLUDED.locked_until, response_status = NULL, response_body = NULL,
             resource_id = CASE WHEN idempotency_keys.created_at < $6 THEN NULL
                                ELSE idempotency_keys.resource_id END
         WHERE idempotency_keys.created_at < $6
            OR (idempotency_keys.response_status IS NULL
                AND (idempotency_keys.locked_until < $4 OR idempotency_keys.resource_id IS NOT NULL)
                AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
       RETURNING resource_id`,
      [
        org,
        key,
        fingerprint,
        new Date(now),
        new Date(now + 2 * MINUTE),
        new Date(now - KEY_LIFETIME_MS),
      ],
    )) as unknown[];
    if (claimed.length > 0) return 'claimed';
    const [row] = (await medium.db.query(
      'SELECT fingerprint, response_status, response_body FROM idempotency_keys WHERE organization_id = $1 AND key = $2',
      [org, key],
    )) as { fingerprint: string; response_status: number | null }[];
    if (row.fingerprint !== fingerprint) return 'reused';
    return row.response_status !== null ? 'replay' : 'in_progress';
  };

  it('matches a request by its body as sent or as JSON: the same body in another order is the same request', async () => {
    await keys.claim(org, 'k', { raw: 'as-sent-a', canonical: 'json-a' });
    await keys.complete(org, 'k', 201, '{"id":"r1"}');
    await expect(
      keys.claim(org, 'k', { raw: 'reordered-a', canonical: 'json-a' }),
    ).resolves.toEqual({ kind: 'replay', status: 201, body: '{"id":"r1"}' });
    await expect(keys.claim(org, 'k', { raw: 'as-sent-b', canonical: 'json-b' })).resolves.toEqual({
      kind: 'reused',
    });
  });

  it('during a rolling upgrade, a replica of the previous version recognises a key this one claimed', async () => {
    const request = { raw: 'as-sent-a', canonical: 'json-a' };
    // Completed: replayed by the previous version to the same body, 422 to another.
    await keys.claim(org, 'done', request);
    await keys.complete(org, 'done', 201, '{"id":"r1"}');
    expect(await previousVersionClaim('done', 'as-sent-a')).toBe('replay');
    expect(await previousVersionClaim('done', 'as-sent-b')).toBe('reused');
    // Still running: in progress there too; its holder died: taken over by the same body only.
    await keys.claim(org, 'held', request);
    expect(await previousVersionClaim('held', 'as-sent-a')).toBe('in_progress');
    medium.clock.advance(2 * MINUTE + 1);
    expect(await previousVersionClaim('held', 'as-sent-b')).toBe('reused');
    expect(await previousVersionClaim('held', 'as-sent-a')).toBe('claimed');
    // Taken over by the previous version: still this request's key here, by either fingerprint.
    await expect(keys.claim(org, 'held', request)).resolves.toEqual({ kind: 'in_progress' });
    await expect(
      keys.claim(org, 'held', { raw: 'reordered-a', canonical: 'json-a' }),
    ).resolves.toEqual({
      kind: 'in_progress',
    });
  });

  it('compares a key the previous version stored by its body as sent only, and one it took over for another body no more by the JSON of the first', async () => {
    // Stored by the previous version: no canonical fingerprint.
    expect(await previousVersionClaim('old', 'as-sent-a')).toBe('claimed');
    await keys.complete(org, 'old', 201, '{"id":"r1"}');
    await expect(
      keys.claim(org, 'old', { raw: 'as-sent-a', canonical: 'json-a' }),
    ).resolves.toMatchObject({ kind: 'replay' });
    await expect(
      keys.claim(org, 'old', { raw: 'reordered-a', canonical: 'json-a' }),
    ).resolves.toEqual({ kind: 'reused' });
    // Claimed here, then after its 24 hours taken over by the previous version for another body:
    // the canonical fingerprint left on the row is the first request's, and no longer matches.
    await keys.claim(org, 'reclaimed', { raw: 'as-sent-a', canonical: 'json-a' });
    await keys.complete(org, 'reclaimed', 201, '{"id":"r1"}');
    medium.clock.advance(KEY_LIFETIME_MS + 1);
    expect(await previousVersionClaim('reclaimed', 'as-sent-b')).toBe('claimed');
    await keys.complete(org, 'reclaimed', 201, '{"id":"r2"}');
    await expect(
      keys.claim(org, 'reclaimed', { raw: 'reordered-a', canonical: 'json-a' }),
    ).resolves.toEqual({ kind: 'reused' });
    await expect(keys.claim(org, 'reclaimed', same('as-sent-b'))).resolves.toMatchObject({
      kind: 'replay',
      body: '{"id":"r2"}',
    });
  });

  it('deletes keys past their 24 hours at most once an hour', async () => {
    // A claim prunes first; move past the hour since the last prune, whenever it was.
    medium.clock.advance(HOUR + 1);
    await keys.claim(org, 'trigger', same('x'));
    const prunedAt = medium.clock.now();
    // A key from 25 hours ago, written as if its request had run then.
    medium.clock.set(prunedAt - 25 * HOUR);
    await keys.claim(org, 'old', same('x'));
    medium.clock.set(prunedAt + 59 * MINUTE);
    await keys.claim(org, 'within-the-hour', same('x'));
    expect((await keyRows()).map((row) => row.key)).toContain('old');
    medium.clock.set(prunedAt + HOUR);
    await keys.claim(org, 'an-hour-later', same('x'));
    expect((await keyRows()).map((row) => row.key)).toEqual([
      'an-hour-later',
      'trigger',
      'within-the-hour',
    ]);
  });
});
