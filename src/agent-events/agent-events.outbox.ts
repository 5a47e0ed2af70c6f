import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { uuidv7 } from '../common/ids';
import { toIso } from '../common/time';
import { AgentEventType } from './agent-event.entity';
import { AGENT_EVENTS_CONFIG, AgentEventsConfig } from './agent-events.config';

/** What happened on a channel, for the agent that owns it. */
export interface AgentEvent {
  type: AgentEventType;
  organizationId: string;
  agentId: string;
  channelId: string;
  /** The event's object as the API shows it (the message, the delivery, the channel). */
  data: Record<string, unknown>;
}

/**
 * Where modules put events for the agent's endpoint: in their own transaction, so that an event
 * exists exactly when what it reports was committed. Nothing is stored while events are off.
 */
@Injectable()
export class AgentEventsOutbox {
  constructor(
    @Inject(AGENT_EVENTS_CONFIG) private readonly config: AgentEventsConfig,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.config.target !== undefined;
  }

  enqueue(db: EntityManager, event: AgentEvent): Promise<void> {
    return this.enqueueAll(db, [event]);
  }

  /** In one statement, in their order (their ids, v7, sort as they are given). */
  async enqueueAll(db: EntityManager, events: readonly AgentEvent[]): Promise<void> {
    if (!this.enabled || events.length === 0) return;
    const now = this.clock.now();
    await db.query(
      `INSERT INTO agent_events (id, organization_id, type, payload, attempts, next_attempt_at, created_at)
       SELECT e.id, e.organization_id, e.type, e.payload::jsonb, 0, $1, $1
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) AS e(id, organization_id, type, payload)`,
      [
        toIso(now),
        events.map(() => uuidv7(now)),
        events.map((event) => event.organizationId),
        events.map((event) => event.type),
        events.map((event) =>
          JSON.stringify({
            type: event.type,
            organization_id: event.organizationId,
            agent_id: event.agentId,
            channel_id: event.channelId,
            data: event.data,
          }),
        ),
      ],
    );
  }
}
