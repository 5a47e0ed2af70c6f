import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';

/**
 * Tells an agent's open MCP event streams that its tools changed. This in-process version
 * reaches the streams of this process only; issue 21's change notifications replace this file
 * with one that carries `publish` to every replica (PostgreSQL LISTEN/NOTIFY), keeping the same
 * interface.
 */
@Injectable()
export class AgentToolChanges {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(organizationId: string, agentId: string): Promise<void> {
    this.emitter.emit(channelOf(organizationId, agentId));
  }

  /** Calls `listener` on each change of the agent's tools until the returned function is called. */
  subscribe(organizationId: string, agentId: string, listener: () => void): () => void {
    const channel = channelOf(organizationId, agentId);
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }
}

const channelOf = (organizationId: string, agentId: string) =>
  JSON.stringify([organizationId, agentId]);
