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
const same = (fingerprint: string) => ({ current: fingerprint, legacy: fingerprint });

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

  it('honours a key stored with the fingerprint of the previous version, by either fingerprint', async () => {
    const upgraded = { current: 'sorted-a', legacy: 'as-sent-a' };
    // Completed before the upgrade: replayed to the same request.
    await keys.claim(org, 'done', same('as-sent-a'));
    await keys.complete(org, 'done', 201, '{"id":"r1"}');
    await expect(keys.claim(org, 'done', upgraded)).resolves.toMatchObject({ kind: 'replay' });
    await expect(
      keys.claim(org, 'done', { current: 'sorted-b', legacy: 'as-sent-b' }),
    ).resolves.toEqual({ kind: 'reused' });
    // Its holder died before the upgrade: taken over after two minutes, and stored anew.
    await keys.claim(org, 'held', same('as-sent-a'));
    await expect(keys.claim(org, 'held', upgraded)).resolves.toEqual({ kind: 'in_progress' });
    medium.clock.advance(2 * MINUTE + 1);
    await expect(keys.claim(org, 'held', upgraded)).resolves.toEqual({
      kind: 'claimed',
      resourceId: null,
    });
    await expect(keys.claim(org, 'held', same('sorted-a'))).resolves.toEqual({
      kind: 'in_progress',
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
