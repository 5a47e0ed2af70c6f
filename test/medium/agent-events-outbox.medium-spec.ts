import { AgentEventsModule } from '../../src/agent-events/agent-events.module';
import { readAgentEventsConfig } from '../../src/agent-events/agent-events.config';
import { AgentEvent, AgentEventsOutbox } from '../../src/agent-events/agent-events.outbox';
import { MediumModule, startMediumModule } from '../support/medium-module';
import { newOrganization } from '../support/test-app';

const NOW = Date.UTC(2026, 0, 15, 9, 30);

/** The agent-events outbox on the real database: an event exists exactly when its cause committed. */
describe('AgentEventsOutbox (medium)', () => {
  let medium: MediumModule;
  let outbox: AgentEventsOutbox;
  let org: string;

  beforeAll(async () => {
    medium = await startMediumModule(
      { imports: [AgentEventsModule] },
      {
        // Events on; nothing sends them (the module is not started).
        env: {
          AGENT_EVENTS_URL: 'http://127.0.0.1:9/events',
          AGENT_EVENTS_SECRET: 'a-passphrase-of-24-characters-or-more',
        },
        now: NOW,
      },
    );
    outbox = medium.moduleRef.get(AgentEventsOutbox);
  });
  afterAll(async () => medium.close());
  beforeEach(() => {
    org = newOrganization();
    medium.clock.set(NOW);
  });

  const anEvent = (data: Record<string, unknown> = { id: 'd1' }): AgentEvent => ({
    type: 'delivery.updated',
    organizationId: org,
    agentId: 'agent-1',
    channelId: '0190d0a0-0000-7000-8000-000000000001',
    data,
  });

  const stored = async () =>
    (await medium.db.query(
      `SELECT id, type, payload, attempts, next_attempt_at, created_at, lease_owner, delivered_at,
              failed_at
         FROM agent_events WHERE organization_id = $1 ORDER BY id`,
      [org],
    )) as {
      id: string;
      type: string;
      payload: Record<string, unknown>;
      attempts: number;
      next_attempt_at: Date;
      created_at: Date;
      lease_owner: string | null;
      delivered_at: Date | null;
      failed_at: Date | null;
    }[];

  it('stores the event as it will be POSTed, due at once, on the injected clock', async () => {
    await medium.db.transaction((db) =>
      outbox.enqueue(db, anEvent({ id: 'd1', text: 'olá 👋', nested: { list: [1, null] } })),
    );
    const [row, ...more] = await stored();
    expect(more).toEqual([]);
    expect(row).toEqual({
      id: expect.any(String),
      type: 'delivery.updated',
      payload: {
        type: 'delivery.updated',
        organization_id: org,
        agent_id: 'agent-1',
        channel_id: '0190d0a0-0000-7000-8000-000000000001',
        data: { id: 'd1', text: 'olá 👋', nested: { list: [1, null] } },
      },
      attempts: 0,
      next_attempt_at: new Date(NOW),
      created_at: new Date(NOW),
      lease_owner: null,
      delivered_at: null,
      failed_at: null,
    });
    // A UUID v7 of the clock's time: ids sort as the events were enqueued.
    expect(parseInt(row.id.replace(/-/g, '').slice(0, 12), 16)).toBe(NOW);
  });

  it('stores nothing when the transaction that enqueued it rolls back', async () => {
    await expect(
      medium.db.transaction(async (db) => {
        await outbox.enqueue(db, anEvent());
        throw new Error('the cause did not commit');
      }),
    ).rejects.toThrow('the cause did not commit');
    expect(await stored()).toEqual([]);
  });

  it('keeps the order of events enqueued in the same millisecond and later ones', async () => {
    await medium.db.transaction(async (db) => {
      await outbox.enqueue(db, anEvent({ n: 1 }));
      await outbox.enqueue(db, anEvent({ n: 2 }));
    });
    medium.clock.advance(1);
    await medium.db.transaction((db) => outbox.enqueue(db, anEvent({ n: 3 })));
    expect((await stored()).map((row) => row.payload.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('stores nothing while events are off (no AGENT_EVENTS_URL)', async () => {
    const off = new AgentEventsOutbox(readAgentEventsConfig({}), medium.clock);
    expect(off.enabled).toBe(false);
    await medium.db.transaction((db) => off.enqueue(db, anEvent()));
    expect(await stored()).toEqual([]);
  });
});
