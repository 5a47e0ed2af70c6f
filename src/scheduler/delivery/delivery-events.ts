import { Injectable } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { AgentEventsOutbox } from '../../agent-events';
import { ChannelsService } from '../../channels';
import { DeliveryEntity } from '../entities/delivery.entity';
import { toDeliveryResponse } from './delivery.mapper';

/** `delivery.updated` agent events, written in the transaction that changed the deliveries. */
@Injectable()
export class DeliveryEvents {
  constructor(
    private readonly events: AgentEventsOutbox,
    private readonly channels: ChannelsService,
  ) {}

  get enabled(): boolean {
    return this.events.enabled;
  }

  /** One event per delivery, as the deliveries lists now show it. */
  async tell(db: EntityManager, ids: readonly string[]): Promise<void> {
    if (!this.events.enabled || ids.length === 0) return;
    const deliveries = await db.findBy(DeliveryEntity, { id: In([...ids]) });
    const agents = await this.channels.agentsOf(db, [
      ...new Set(deliveries.map((d) => d.channelId)),
    ]);
    // One statement for the group: this runs inside an outcome write, holding its rows.
    await this.events.enqueueAll(
      db,
      deliveries.map((delivery) => ({
        type: 'delivery.updated',
        organizationId: delivery.organizationId,
        agentId: agents.get(delivery.channelId) ?? '',
        channelId: delivery.channelId,
        data: { ...toDeliveryResponse(delivery) },
      })),
    );
  }
}
