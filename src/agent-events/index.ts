/**
 * What other modules may use of agent-events (docs/architecture.md): the module, its
 * configuration for the composition root, and the outbox that channels and the scheduler write
 * their events to, inside their own transactions.
 */
export { AgentEventsModule } from './agent-events.module';
export { readAgentEventsConfig } from './agent-events.config';
export { AgentEventsOutbox } from './agent-events.outbox';
export type { AgentEvent } from './agent-events.outbox';
export { documentAgentEvents } from './agent-events.openapi';
export type {
  AgentEventBody,
  AgentEventDocumentation,
  AgentEventDocumentations,
  AgentEventsDocument,
} from './agent-events.openapi';
