import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentEventEntity } from './agent-event.entity';
import { AGENT_EVENTS_CONFIG, readAgentEventsConfig } from './agent-events.config';
import { AgentEventsOutbox } from './agent-events.outbox';
import { AgentEventsSender } from './agent-events.sender';

/**
 * Owns the agent_events outbox and the POSTs to AGENT_EVENTS_URL. Channels and the scheduler put
 * events in (AgentEventsOutbox.enqueue, inside their transactions); this module sends them.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AgentEventEntity])],
  providers: [
    { provide: AGENT_EVENTS_CONFIG, useFactory: () => readAgentEventsConfig(process.env) },
    AgentEventsOutbox,
    AgentEventsSender,
  ],
  exports: [AgentEventsOutbox],
})
export class AgentEventsModule {}
