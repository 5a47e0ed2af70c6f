import { randomUUID } from 'node:crypto';
import {
  DispatchLimits,
  FollowUpDispatcher,
} from '../../src/scheduler/dispatch/follow-up-dispatcher';
import { SchedulerModule } from '../../src/scheduler/scheduler.module';
import { MediumModule, startMediumModule } from '../support/medium-module';
import { newOrganization } from '../support/test-app';

const NOW = Date.UTC(2026, 4, 4, 8, 0);

/**
 * The dispatch of due follow-ups into the outbox, in bounded batches and sliced statements: however
 * it is cut, every number of every follow-up gets exactly one delivery per occurrence.
 */
describe('FollowUpDispatcher (medium)', () => {
  let medium: MediumModule;
  let dispatcher: FollowUpDispatcher;

  beforeAll(async () => {
    medium = await startMediumModule({ imports: [SchedulerModule] }, { now: NOW });
    dispatcher = medium.moduleRef.get(FollowUpDispatcher);
  });
  afterAll(async () => medium.close());
  beforeEach(async () => {
    for (const table of ['delivery_attempts', 'deliveries', 'follow_ups']) {
      await medium.db.query(`DELETE FROM ${table}`);
    }
  });

  /** `sizes.length` follow-ups due at NOW, the i-th with sizes[i] numbers (`once` or `daily`). */
  const followUps = async (sizes: number[], frequency = 'once') => {
    const org = newOrganization();
    for (const [index, size] of sizes.entries()) {
      const numbers = Array.from(
        { length: size },
        (_, n) => `+3461${String(index * 10_000 + n).padStart(7, '0')}`,
      );
      await medium.db.query(
        `INSERT INTO follow_ups (id, organization_id, agent_id, channel_id, channel_type, channel_kind,
                                 client_phone_numbers, frequency, time_zone, prompt, title, status,
                                 anchor_at, next_run_at, created_by, created_at, updated_at)
         VALUES ($1, $2, 'agent-1', $3, 'Whatsapp', 'whatsapp', $4, $5, 'UTC', 'p', 't', 'active',
                 $6, $6, 'dana', $6, $6)`,
        [randomUUID(), org, randomUUID(), JSON.stringify(numbers), frequency, new Date(NOW)],
      );
    }
  };

  /** Dispatches until nothing is left; answers how many batches it took. */
  const dispatchAll = async (limits: DispatchLimits) => {
    let batches = 0;
    for (let more = true; more; batches++) ({ more } = await dispatcher.dispatchBatch(NOW, limits));
    return batches;
  };

  const counts = async () =>
    (
      await medium.db.query(
        `SELECT (SELECT count(*) FROM deliveries)::int AS deliveries,
                (SELECT count(DISTINCT (follow_up_id, occurrence_at, phone)) FROM deliveries)::int AS distinct,
                (SELECT coalesce(sum(jsonb_array_length(client_phone_numbers)), 0) FROM follow_ups)::int
                  AS numbers,
                (SELECT count(*) FROM follow_ups WHERE next_run_at <= $1 AND status = 'active')::int AS due`,
        [new Date(NOW)],
      )
    )[0] as { deliveries: number; distinct: number; numbers: number; due: number };

  const sizes = [1, 700, 3, 2_500, 1, 1, 40, 999, 1_000, 2, 1_001, 5];

  it.each([
    ['small batches, sliced statements', { followUps: 4, numbers: 1_000, rowsPerStatement: 97 }],
    ['one statement per batch', { followUps: 500, numbers: 2_000, rowsPerStatement: Infinity }],
    [
      'slices with a turn of the event loop between them',
      {
        followUps: 3,
        numbers: 500,
        rowsPerStatement: 250,
        between: () => new Promise<void>((resolve) => setImmediate(resolve)),
      },
    ],
  ])('writes one delivery per number per occurrence: %s', async (_, limits) => {
    await followUps(sizes);
    await dispatchAll(limits);
    const after = await counts();
    expect(after.numbers).toBe(sizes.reduce((sum, size) => sum + size, 0));
    expect(after.deliveries).toBe(after.numbers);
    expect(after.distinct).toBe(after.numbers);
    expect(after.due).toBe(0);
    // Nothing is left to dispatch, and a second pass writes nothing.
    expect(await dispatcher.dispatchBatch(NOW, limits)).toEqual({ more: false });
    expect((await counts()).deliveries).toBe(after.numbers);
  });

  it('dispatches many small follow-ups in batches, each once', async () => {
    await followUps(
      Array.from({ length: 1_200 }, () => 1),
      'daily',
    );
    const batches = await dispatchAll({ followUps: 100, numbers: 1_000, rowsPerStatement: 250 });
    expect(batches).toBeGreaterThanOrEqual(12);
    const after = await counts();
    expect(after.deliveries).toBe(1_200);
    expect(after.distinct).toBe(1_200);
    expect(after.due).toBe(0);
  });

  it('takes one follow-up larger than the batch by itself', async () => {
    await followUps([3_000, 10]);
    expect(
      await dispatcher.dispatchBatch(NOW, { followUps: 10, numbers: 1_000, rowsPerStatement: 400 }),
    ).toEqual({ more: true });
    expect((await counts()).deliveries).toBe(3_000);
    await dispatchAll({ followUps: 10, numbers: 1_000, rowsPerStatement: 400 });
    expect((await counts()).deliveries).toBe(3_010);
  });
});
