import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../../src/common/ids';
import {
  ClaimedDelivery,
  ClaimRef,
  DeliveryOutbox,
  DeliveryOutcome,
} from '../../src/scheduler/delivery/delivery-outbox';
import { SchedulerModule } from '../../src/scheduler/scheduler.module';
import { MediumModule, startMediumModule } from '../support/medium-module';
import { newOrganization } from '../support/test-app';

const NOW = Date.UTC(2026, 4, 4, 8, 0);
const SECOND = 1_000;
const LEASE_MS = 60_000;
/** DELIVERY_HEARTBEAT_TIMEOUT_MS */
const TIMEOUT_MS = 6_000;
const MAX_ATTEMPTS = 3;

/**
 * The delivery outbox on the real database, through its public methods only: what a claim takes,
 * what an outcome writes, what a release gives back and what a take-over judges. Times the caller
 * passes come from the injected clock; heartbeats and leases run on the database's clock, so a
 * dead process is one whose heartbeat row says it beat long ago (no test sleeps).
 */
describe('DeliveryOutbox (medium)', () => {
  let medium: MediumModule;
  let outbox: DeliveryOutbox;
  let org: string;
  let channelId: string;

  beforeAll(async () => {
    medium = await startMediumModule({ imports: [SchedulerModule] }, { now: NOW });
    outbox = medium.moduleRef.get(DeliveryOutbox);
  });
  afterAll(async () => medium.close());
  beforeEach(async () => {
    // The outbox claims across organizations: each test starts from an empty queue (the database
    // is this file's own).
    for (const table of ['delivery_attempts', 'deliveries', 'scheduler_processes']) {
      await medium.db.query(`DELETE FROM ${table}`);
    }
    medium.clock.set(NOW);
    org = newOrganization();
    // Deliveries name their channel without a foreign key: each test's own keeps rate windows apart.
    channelId = randomUUID();
  });

  const sql = <T>(text: string, parameters: unknown[] = []) =>
    medium.db.query(text, parameters) as Promise<T[]>;

  /** A message sent now (no follow-up), pending and due at `dueAt`; answers its id. */
  const aDelivery = async ({
    dueAt = NOW,
    phone = `+3461${Math.floor(Math.random() * 1e7)}`,
    channel = channelId,
    followUpId = null as string | null,
  } = {}) => {
    const id = uuidv7(dueAt);
    await sql(
      `INSERT INTO deliveries (id, organization_id, follow_up_id, channel_id, channel_kind,
                               occurrence_at, phone, status, attempts, next_attempt_at,
                               message_text, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'whatsapp', $5, $6, 'pending', 0, $5, 'hola', $5, $5)`,
      [id, org, followUpId, channel, new Date(dueAt), phone],
    );
    return id;
  };

  /** A follow-up of a WhatsApp channel, for deliveries that a pause or a delete must hold. */
  const aFollowUp = async () => {
    const channel = randomUUID();
    const followUp = randomUUID();
    await sql(
      `INSERT INTO whatsapp_channels (id, organization_id, agent_id, number_id,
                                      access_token_encrypted, status, verification_token,
                                      created_by, created_at, updated_at)
       VALUES ($1, $2, 'agent-1', $3, 'sealed', 'active', $3, 'dana', now(), now())`,
      [channel, org, randomUUID()],
    );
    await sql(
      `INSERT INTO follow_ups (id, organization_id, agent_id, channel_id, channel_type, channel_kind,
                               client_phone_numbers, frequency, time_zone, prompt, title, status,
                               anchor_at, created_by, created_at, updated_at)
       VALUES ($1, $2, 'agent-1', $3, 'Whatsapp', 'whatsapp', '[]', 'once', 'UTC', 'p', 't',
               'active', now(), 'dana', now(), now())`,
      [followUp, org, channel],
    );
    return followUp;
  };

  /** A process that has just beaten (registering if new); answers its id. */
  const aProcess = async (owner: string = randomUUID()) => {
    await outbox.beat(
      { owner, host: 'medium', pid: 1, leaseMs: LEASE_MS, timeoutMs: TIMEOUT_MS },
      [],
    );
    return owner;
  };

  /**
   * Moves a process's heartbeat into the past: `beatenAgo` since its last beat, beating without a
   * gap for `watchingFor` before that.
   */
  const age = (owner: string, { beatenAgo = 0, watchingFor = 0 }) =>
    sql(
      `UPDATE scheduler_processes
          SET beaten_at = clock_timestamp() - make_interval(secs => $2::double precision / 1000),
              beating_since = clock_timestamp() - make_interval(secs => $3::double precision / 1000)
        WHERE id = $1`,
      [owner, beatenAgo, beatenAgo + watchingFor],
    );

  const judge = (sessionUnbroken = false) => ({ timeoutMs: TIMEOUT_MS, sessionUnbroken });

  /**
   * `dead` has not beaten for over a time-out, `reaper` has beaten for over one without a gap: the
   * reaper takes the dead process's claims over. Answers how many.
   */
  const takeOver = async (dead: string, reaper: string) => {
    await age(dead, { beatenAgo: TIMEOUT_MS + SECOND });
    await age(reaper, { watchingFor: TIMEOUT_MS + SECOND });
    return outbox.reapAbandoned(reaper, NOW, MAX_ATTEMPTS, judge());
  };

  const claim = (owner: string, options: { limit?: number; ratePerSecond?: number } = {}) =>
    outbox.claim({
      owner,
      heartbeatTimeoutMs: TIMEOUT_MS,
      now: medium.clock.now(),
      limit: options.limit ?? 100,
      leaseMs: LEASE_MS,
      ratePerSecond: options.ratePerSecond ?? 0,
    });

  const refs = (claimed: ClaimedDelivery[]): ClaimRef[] =>
    claimed.map(({ id, attempts }) => ({ id, attempt: attempts }));

  const rowOf = async (id: string) =>
    (
      await sql<{
        status: string;
        attempts: number;
        lease_owner: string | null;
        next_attempt_at: Date;
        sent_at: Date | null;
        sent_by: string | null;
        last_error_code: string | null;
      }>(
        `SELECT status, attempts, lease_owner, next_attempt_at, sent_at, sent_by, last_error_code
           FROM deliveries WHERE id = $1`,
        [id],
      )
    )[0];

  const attemptsOf = (id: string) =>
    sql<{ attempt: number; process_id: string; outcome: string | null; error_code: string | null }>(
      `SELECT attempt, process_id, outcome, error_code FROM delivery_attempts
        WHERE delivery_id = $1 ORDER BY attempt`,
      [id],
    );

  /** The outcome of a send Meta accepted, as the worker reports it (one place to follow renames). */
  const sent = (ref: ClaimRef, providerMessageId: string): DeliveryOutcome => ({
    id: ref.id,
    attempt: ref.attempt,
    at: medium.clock.now(),
    status: 'sent',
    providerMessageId: providerMessageId,
    messageType: 'text',
    sentAt: medium.clock.now(),
  });
  const retry = (ref: ClaimRef, retryAt: number): DeliveryOutcome => ({
    id: ref.id,
    attempt: ref.attempt,
    at: medium.clock.now(),
    status: 'pending',
    retryAt,
    errorCode: 'http_503',
    errorMessage: 'Graph API answered HTTP 503',
  });

  describe('claim', () => {
    it('takes the due pending rows in due order, up to the limit, and logs each as an attempt', async () => {
      const later = await aDelivery({ dueAt: NOW - SECOND });
      const first = await aDelivery({ dueAt: NOW - 2 * SECOND });
      const notDue = await aDelivery({ dueAt: NOW + SECOND });
      const owner = await aProcess();

      const claimed = await claim(owner, { limit: 1 });
      expect(claimed).toEqual([
        expect.objectContaining({ id: first, organizationId: org, channelId, attempts: 1 }),
      ]);
      expect(claimed[0]).toMatchObject({ followUpId: null, messageText: 'hola' });
      expect(await claim(owner)).toEqual([expect.objectContaining({ id: later })]);
      expect(await claim(owner)).toEqual([]);

      expect(await rowOf(first)).toMatchObject({
        status: 'sending',
        attempts: 1,
        lease_owner: owner,
      });
      expect(await rowOf(notDue)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await attemptsOf(first)).toEqual([
        { attempt: 1, process_id: owner, outcome: null, error_code: null },
      ]);
    });

    it('gives a row to one claimant only', async () => {
      const ids = await Promise.all([1, 2, 3, 4].map(() => aDelivery()));
      const [a, b] = [await aProcess(), await aProcess()];
      const [byA, byB] = await Promise.all([claim(a, { limit: 3 }), claim(b, { limit: 3 })]);
      const taken = [...byA, ...byB].map((row) => row.id).filter((id) => ids.includes(id));
      expect(taken.sort()).toEqual([...ids].sort());
    });

    it('claims nothing for a process without a fresh heartbeat', async () => {
      await aDelivery();
      // Never beat.
      expect(await claim(randomUUID())).toEqual([]);
      // Beat longer ago than half a time-out: another process may judge it dead any moment.
      const stalled = await aProcess();
      await age(stalled, { beatenAgo: TIMEOUT_MS / 2 + SECOND });
      expect(await claim(stalled)).toEqual([]);
      // Gone (unregistered at a graceful stop).
      const stopped = await aProcess();
      await outbox.unregister(stopped);
      expect(await claim(stopped)).toEqual([]);
      await aProcess(stalled);
      expect(await claim(stalled)).toHaveLength(1);
    });

    it('leaves cancelled rows and those of paused or deleted follow-ups', async () => {
      const cancelled = await aDelivery();
      await sql('UPDATE deliveries SET cancel_requested = true WHERE id = $1', [cancelled]);
      const paused = await aFollowUp();
      await aDelivery({ followUpId: paused });
      await sql("UPDATE follow_ups SET status = 'paused' WHERE id = $1", [paused]);
      const deleted = await aFollowUp();
      await aDelivery({ followUpId: deleted });
      await sql('UPDATE follow_ups SET deleted_at = now() WHERE id = $1', [deleted]);
      const active = await aFollowUp();
      const due = await aDelivery({ followUpId: active });

      expect((await claim(await aProcess())).map((row) => row.id)).toEqual([due]);
    });

    it('holds each channel to its budget per second', async () => {
      const other = randomUUID();
      for (let i = 0; i < 4; i++) {
        await aDelivery();
        await aDelivery({ channel: other });
      }
      const claimed = await claim(await aProcess(), { ratePerSecond: 2 });
      const perChannel = (channel: string) =>
        claimed.filter((row) => row.channelId === channel).length;
      expect([perChannel(channelId), perChannel(other)]).toEqual([2, 2]);
    });
  });

  describe('record', () => {
    it('writes a send and its attempt, and says nothing was lost', async () => {
      const id = await aDelivery();
      const owner = await aProcess();
      const [ref] = refs(await claim(owner));
      medium.clock.advance(SECOND);

      await expect(
        outbox.record(owner, medium.clock.now(), [sent(ref, 'wamid.1')]),
      ).resolves.toEqual([]);
      expect(await rowOf(id)).toMatchObject({
        status: 'sent',
        sent_by: owner,
        sent_at: new Date(NOW + SECOND),
        lease_owner: null,
      });
      expect(await attemptsOf(id)).toEqual([
        { attempt: 1, process_id: owner, outcome: 'sent', error_code: null },
      ]);
    });

    it('puts a retry back in the queue for its time, and claims it then as the next attempt', async () => {
      const id = await aDelivery();
      const owner = await aProcess();
      const [ref] = refs(await claim(owner));
      const retryAt = NOW + 30 * SECOND;
      await outbox.record(owner, medium.clock.now(), [retry(ref, retryAt)]);
      expect(await rowOf(id)).toMatchObject({
        status: 'pending',
        next_attempt_at: new Date(retryAt),
        last_error_code: 'http_503',
      });

      medium.clock.set(retryAt - 1);
      expect(await claim(owner)).toEqual([]);
      medium.clock.set(retryAt);
      expect(await claim(owner)).toEqual([expect.objectContaining({ id, attempts: 2 })]);
      expect(await attemptsOf(id)).toEqual([
        { attempt: 1, process_id: owner, outcome: 'failed', error_code: 'http_503' },
        { attempt: 2, process_id: owner, outcome: null, error_code: null },
      ]);
    });

    it('cancels instead of retrying a delivery cancelled while it was claimed', async () => {
      const id = await aDelivery();
      const owner = await aProcess();
      const [ref] = refs(await claim(owner));
      await sql('UPDATE deliveries SET cancel_requested = true WHERE id = $1', [id]);
      await outbox.record(owner, medium.clock.now(), [retry(ref, NOW + SECOND)]);
      expect((await rowOf(id)).status).toBe('cancelled');
    });

    it('never writes over a claim taken over since, but keeps the late attempt’s outcome', async () => {
      const id = await aDelivery();
      const [slow, survivor] = [await aProcess(), await aProcess()];
      const [late] = refs(await claim(slow));
      // The slow process is judged dead, its claim taken over and claimed again by the survivor.
      expect(await takeOver(slow, survivor)).toBe(1);
      const [current] = refs(await claim(survivor));
      expect(current).toEqual({ id, attempt: 2 });

      await expect(outbox.record(slow, NOW, [sent(late, 'wamid.late')])).resolves.toEqual([id]);
      expect(await rowOf(id)).toMatchObject({ status: 'sending', lease_owner: survivor });
      expect(await attemptsOf(id)).toEqual([
        { attempt: 1, process_id: slow, outcome: 'sent', error_code: null },
        { attempt: 2, process_id: survivor, outcome: null, error_code: null },
      ]);
    });

    it('never writes a late outcome over a later claim of the same row by the same process', async () => {
      const id = await aDelivery();
      const [owner, reaper] = [await aProcess(), await aProcess()];
      const [late] = refs(await claim(owner));
      // Cut off long enough to be judged dead; back, it beats again and claims the row anew.
      expect(await takeOver(owner, reaper)).toBe(1);
      await aProcess(owner);
      expect(refs(await claim(owner))).toEqual([{ id, attempt: 2 }]);

      await expect(outbox.record(owner, NOW, [sent(late, 'wamid.late')])).resolves.toEqual([id]);
      expect(await rowOf(id)).toMatchObject({ status: 'sending', lease_owner: owner, attempts: 2 });
    });
  });

  describe('release', () => {
    it('gives back uncounted what was claimed but never called, and only its own claims', async () => {
      const id = await aDelivery({ dueAt: NOW - SECOND });
      const owner = await aProcess();
      const claimed = refs(await claim(owner));
      await outbox.release(randomUUID(), claimed, NOW);
      expect((await rowOf(id)).status).toBe('sending');

      medium.clock.advance(5 * SECOND);
      await outbox.release(owner, claimed, medium.clock.now());
      expect(await rowOf(id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        lease_owner: null,
        next_attempt_at: new Date(NOW + 5 * SECOND),
      });
      expect(await attemptsOf(id)).toEqual([]);
      expect(await claim(owner)).toEqual([expect.objectContaining({ id, attempts: 1 })]);
    });
  });

  describe('reapAbandoned', () => {
    it('takes over a dead process’s claims, ahead of the rows due with them, as an unknown attempt', async () => {
      const taken = await aDelivery();
      const dead = await aProcess();
      await claim(dead);
      const sameTime = await aDelivery();
      const reaper = await aProcess();

      expect(await takeOver(dead, reaper)).toBe(1);
      expect(await rowOf(taken)).toMatchObject({
        status: 'pending',
        attempts: 1,
        lease_owner: null,
        // A millisecond ahead of the rows due at the same time (a large occurrence).
        next_attempt_at: new Date(NOW - 1),
      });
      expect(await attemptsOf(taken)).toEqual([
        { attempt: 1, process_id: dead, outcome: 'unknown', error_code: 'outcome_unknown' },
      ]);
      const next = await claim(reaper, { limit: 1 });
      expect(next.map((row) => row.id)).toEqual([taken]);
      expect(await rowOf(sameTime)).toMatchObject({ status: 'pending' });
    });

    it('does not judge before it has watched a whole time-out, nor a process still beating', async () => {
      const dead = await aProcess();
      const alive = await aProcess();
      await aDelivery();
      await aDelivery();
      await claim(dead, { limit: 1 });
      await claim(alive, { limit: 1 });
      await age(dead, { beatenAgo: TIMEOUT_MS + SECOND });
      // Just started (or back after a gap): it watches before it may judge.
      const newcomer = await aProcess();
      expect(await outbox.reapAbandoned(newcomer, NOW, MAX_ATTEMPTS, judge())).toBe(0);
      await age(newcomer, { watchingFor: TIMEOUT_MS + SECOND });
      expect(await outbox.reapAbandoned(newcomer, NOW, MAX_ATTEMPTS, judge())).toBe(1);
      const held = await sql<{ lease_owner: string }>(
        "SELECT lease_owner FROM deliveries WHERE organization_id = $1 AND status = 'sending'",
        [org],
      );
      expect(held).toEqual([{ lease_owner: alive }]);
    });

    it('fails a row at its last attempt, and cancels a cancelled one', async () => {
      const last = await aDelivery();
      await sql('UPDATE deliveries SET attempts = $2 WHERE id = $1', [last, MAX_ATTEMPTS - 1]);
      const cancelled = await aDelivery();
      const dead = await aProcess();
      expect(await claim(dead)).toHaveLength(2);
      await sql('UPDATE deliveries SET cancel_requested = true WHERE id = $1', [cancelled]);

      expect(await takeOver(dead, await aProcess())).toBe(2);
      expect(await rowOf(last)).toMatchObject({
        status: 'failed',
        attempts: MAX_ATTEMPTS,
        last_error_code: 'lease_expired',
      });
      expect((await rowOf(cancelled)).status).toBe('cancelled');
    });
  });

  describe('startCalls and beat', () => {
    it('let a call go only for claims still held, and keep those claims alive', async () => {
      const kept = await aDelivery();
      const paused = await aFollowUp();
      const held = await aDelivery({ followUpId: paused });
      const owner = await aProcess();
      const claimed = refs(await claim(owner));
      expect(claimed.map((ref) => ref.id).sort()).toEqual([kept, held].sort());
      await sql("UPDATE follow_ups SET status = 'paused' WHERE id = $1", [paused]);
      const stale = { id: kept, attempt: 7 };

      const options = { now: NOW, leaseMs: LEASE_MS, heartbeatTimeoutMs: TIMEOUT_MS };
      await expect(outbox.startCalls(owner, [...claimed, stale], options)).resolves.toEqual([
        { id: kept, attempt: 1 },
      ]);
      const beating = { owner, host: 'medium', pid: 1, leaseMs: LEASE_MS, timeoutMs: TIMEOUT_MS };
      const stillHeld = await outbox.beat(beating, [...claimed, stale]);
      expect(stillHeld.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
        [...claimed].sort((a, b) => a.id.localeCompare(b.id)),
      );
      // A stalled process may not start a call, even for a claim it holds.
      await age(owner, { beatenAgo: TIMEOUT_MS / 2 + SECOND });
      await expect(outbox.startCalls(owner, claimed, options)).resolves.toEqual([]);
    });
  });
});
