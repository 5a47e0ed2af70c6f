import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AgentEventsOutbox } from '../agent-events';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ChannelDeactivation, ChannelMessageSender } from './channel-message-sender';
import { webhookUrl } from './channel.mappers';
import { ChannelKinds } from './kinds/channel-kinds';

/** Tells the agent when one of its channels stops working (`channel.deactivated`). */
@Injectable()
export class ChannelEvents implements OnModuleInit {
  constructor(
    private readonly sender: ChannelMessageSender,
    private readonly events: AgentEventsOutbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly kinds: ChannelKinds,
  ) {}

  onModuleInit(): void {
    this.sender.onDeactivated((db, deactivation) => this.deactivated(db, deactivation));
  }

  /** In the deactivation's transaction: the event exists exactly when the deactivation does. */
  private async deactivated(db: EntityManager, deactivation: ChannelDeactivation): Promise<void> {
    if (!this.events.enabled) return;
    const { channel } = deactivation;
    const data = this.kinds
      .get(channel.kind)
      .toResponse(channel, webhookUrl(this.config.publicUrl, channel));
    await this.events.enqueue(db, {
      type: 'channel.deactivated',
      organizationId: deactivation.organizationId,
      agentId: deactivation.agentId,
      channelId: deactivation.channelId,
      data: { ...data },
    });
  }
}
