import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AgentEventsOutbox } from '../../agent-events';
import type { ChannelErrorEventDto } from './channel-error-event.dto';
import type { InboundAccountErrors } from './inbound-notification';
import type { WebhookChannel } from './webhook-channels';

/**
 * Errors Meta reports about a channel's account rather than a message (WhatsApp's value-level
 * `errors`): Meta does not say them twice, so each becomes a warning in the log an operator can
 * act on and a `channel.error` event for the agent.
 */
@Injectable()
export class AccountErrorsHandler {
  private readonly logger = new Logger('MetaWebhooks');

  constructor(private readonly events: AgentEventsOutbox) {}

  async report(db: EntityManager, channel: WebhookChannel, reported: InboundAccountErrors) {
    for (const error of reported.errors) {
      this.logger.warn(
        `Meta reported error ${error.code} (${error.title ?? 'no title'}) for ${channel.kind} channel ${channel.id}` +
          ` in a "${reported.field}" notification: ${error.details ?? error.message ?? 'no details'}`,
      );
    }
    const data: ChannelErrorEventDto = {
      channel_id: channel.id,
      field: reported.field,
      errors: reported.errors,
    };
    await this.events.enqueue(db, {
      type: 'channel.error',
      organizationId: channel.organizationId,
      agentId: channel.agentId,
      channelId: channel.id,
      data: { ...data },
    });
  }
}
