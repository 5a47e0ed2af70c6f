import { eventually } from './support/eventually';
import { FakeGraphApi } from './support/fake-graph-api';
import {
  CONCURRENCY,
  countByKey,
  FOLLOW_UPS,
  keyOf,
  NUMBERS,
  onPostgres,
  replicaProcesses,
  report,
  Setup,
} from './support/replica-processes';

/**
 * Real service processes on one PostgreSQL database, timed: a stop within its grace period, a
 * take-over within seconds of a kill. A loaded machine can break such bounds, so these run alone
 * (replicas.e2e-spec.ts holds the rest).
 */
onPostgres('Replicas and crashes, timed (e2e, PostgreSQL, alone)', () => {
  const replicas = replicaProcesses();
  const { start, killAfterSends, duplicates, openDeliveries } = replicas;
  let graph: FakeGraphApi;
  let setup: Setup;
  beforeEach(() => ({ graph, setup } = replicas.state));

  it('on SIGTERM mid-delivery stops claiming, finishes or releases its work, and leaves nothing claimed', async () => {
    graph.latencyMs = 20;
    const service = start({ SHUTDOWN_GRACE_MS: '3000' });
    await graph.waitForMessages(FOLLOW_UPS * NUMBERS * 0.2, 120_000);
    const stoppingAt = Date.now();
    service.kill('SIGTERM');
    const exit = await service.exited;
    // Nest re-raises the signal once its shutdown hooks have run.
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    expect(Date.now() - stoppingAt).toBeLessThan(10_000);
    const claimed = await setup.query<{ n: string }>(
      "SELECT count(*) AS n FROM deliveries WHERE status = 'sending'",
    );
    expect(claimed[0].n).toBe('0');
    const sentAtStop = graph.messages.length;
    expect(sentAtStop).toBeLessThan(FOLLOW_UPS * NUMBERS);

    // What it gave back is sent by the next process, nothing twice.
    start();
    await eventually(async () => expect(await openDeliveries()).toBe(0), 120_000, 200);
    const counts = countByKey(graph.messages);
    expect(new Set(counts.keys())).toEqual(setup.expected);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
  });

  it('on SIGTERM with slow answers waits for the calls in flight and records them: a second replica sends nothing twice', async () => {
    // Answers take most of the Graph time-out: at SIGTERM every sender has a call in flight.
    graph.latencyMs = 1_500;
    const slow = {
      GRAPH_API_TIMEOUT_MS: '2000',
      DELIVERY_LEASE_MS: '4000',
      SHUTDOWN_GRACE_MS: '3000',
      LOG_LEVEL: 'info',
    };
    const first = start(slow);
    await graph.waitForMessages(FOLLOW_UPS * NUMBERS * 0.05, 120_000);
    const second = start(slow);
    await second.waitForOutput('agentline listening');
    const stoppingAt = Date.now();
    first.kill('SIGTERM');
    const exit = await first.exited;
    const exitMs = Date.now() - stoppingAt;
    report(`SIGTERM with 1.5 s answers, 3 s grace: exit after ${exitMs} ms`);
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    expect(exitMs).toBeLessThan(3_000 + 2_000);
    // The stopped process holds nothing and is no longer beating.
    const leftBehind = await setup.query<{ n: string }>(
      "SELECT count(*) AS n FROM deliveries WHERE status = 'sending' AND lease_owner NOT IN (SELECT id FROM scheduler_processes)",
    );
    expect(leftBehind[0].n).toBe('0');
    expect(
      await setup.query('SELECT pid FROM scheduler_processes WHERE pid = $1', [first.child.pid]),
    ).toEqual([]);

    graph.latencyMs = 20;
    await eventually(async () => expect(await openDeliveries()).toBe(0), 120_000, 200);
    const counts = countByKey(graph.messages);
    expect(new Set(counts.keys())).toEqual(setup.expected);
    report(`SIGTERM with slow answers: ${duplicates()} duplicates`);
    expect(duplicates()).toBe(0);
  });

  it('on SIGTERM records the calls that time out within the grace period, and gives back the rest', async () => {
    graph.respondWith(() => 'hang');
    const service = start({ SHUTDOWN_GRACE_MS: '2500', GRAPH_API_TIMEOUT_MS: '1000' });
    await eventually(
      async () => expect(graph.requests).toBeGreaterThanOrEqual(CONCURRENCY),
      60_000,
      100,
    );
    const stoppingAt = Date.now();
    service.kill('SIGTERM');
    await service.exited;
    expect(Date.now() - stoppingAt).toBeLessThan(2_500 + 2_000);
    const rows = await setup.query<{ status: string; attempts: number; n: string }>(
      'SELECT status, attempts, count(*)::int AS n FROM deliveries GROUP BY status, attempts ORDER BY attempts',
    );
    // Every call made ended (time-out) and is recorded as a failed attempt to retry; the rest were
    // never called and are given back uncounted. Nothing is left claimed.
    const called = graph.requests;
    expect(rows).toEqual([
      { status: 'pending', attempts: 0, n: FOLLOW_UPS * NUMBERS - called },
      { status: 'pending', attempts: 1, n: called },
    ]);
    const attempts = await setup.query<{ outcome: string; error_code: string; n: number }>(
      'SELECT outcome, error_code, count(*)::int AS n FROM delivery_attempts GROUP BY outcome, error_code',
    );
    expect(attempts).toEqual([{ outcome: 'failed', error_code: 'timeout', n: called }]);
    expect(graph.messages).toHaveLength(0);
  });

  it('takes over the claims of a process killed with SIGKILL within seconds, and shows the repeat', async () => {
    graph.latencyMs = 300;
    await setup.query("UPDATE follow_ups SET next_run_at = now() + interval '1 hour'");
    // Default heartbeat and lease: the take-over cannot come from the lease (60 s).
    const defaults = {
      DELIVERY_HEARTBEAT_MS: '2000',
      DELIVERY_HEARTBEAT_TIMEOUT_MS: '6000',
      DELIVERY_LEASE_MS: '60000',
      LOG_LEVEL: 'info',
    };
    const survivor = start(defaults);
    const victim = start(defaults);
    await Promise.all([survivor, victim].map((s) => s.waitForOutput('agentline listening')));
    // No wait for the survivor to have lived a time-out: its session lock was never broken, so
    // it judges the victim by its session (the rule for a judge that has watched a whole time-out
    // is driven directly in deliveries.e2e-spec.ts).
    await setup.query('UPDATE follow_ups SET next_run_at = now()');
    const { victimId, killedAt } = await killAfterSends(victim, 0.3);
    const held = await setup.query<{ id: string; phone: string; title: string }>(
      `SELECT d.id, d.phone, f.title FROM deliveries d JOIN follow_ups f ON f.id = d.follow_up_id
        WHERE d.status = 'sending' AND d.lease_owner = $1`,
      [victimId],
    );
    expect(held.length).toBeGreaterThan(0);
    const heldKeys = new Set(held.map((row) => `${row.title}|${row.phone.slice(1)}`));
    const resent = await eventually(
      async () => {
        const again = graph.messages.filter(
          (message) => message.receivedAt > killedAt && heldKeys.has(keyOf(message)),
        );
        expect(again.length).toBeGreaterThan(0);
        return again;
      },
      30_000,
      50,
    );
    const recoveryMs = Math.min(...resent.map((message) => message.receivedAt)) - killedAt;
    report(`kill -9: first send of a dead process's row ${recoveryMs} ms after the kill`);
    expect(recoveryMs).toBeLessThan(10_000);

    await eventually(async () => expect(await openDeliveries()).toBe(0), 120_000, 200);
    // A repeated message is explained by its delivery's attempts: the unknown one of the dead
    // process, then the sent one, each with the process that made it.
    const delivery = held[0];
    const followUpId = (
      await setup.query<{ follow_up_id: string }>(
        'SELECT follow_up_id FROM deliveries WHERE id = $1',
        [delivery.id],
      )
    )[0].follow_up_id;
    const items = (
      await setup.api
        .http()
        .get(`/v1/scheduler/follow-up/whatsapp/${followUpId}/deliveries?limit=200`)
        .set(setup.auth)
        .expect(200)
    ).body.data.items as { id: string; attempts: number; attempt_history: unknown[] }[];
    const listed = items.find((item) => item.id === delivery.id)!;
    expect(listed.attempts).toBe(2);
    expect(listed.attempt_history).toEqual([
      expect.objectContaining({ attempt: 2, outcome: 'sent', wa_message_id: expect.any(String) }),
      expect.objectContaining({
        attempt: 1,
        outcome: 'unknown',
        process_id: victimId,
        error: expect.objectContaining({ code: 'outcome_unknown' }),
      }),
    ]);
  });
});
