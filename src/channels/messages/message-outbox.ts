import type { IdempotentRequest } from '../../common/idempotency/idempotency-keys';
import type { ChannelKind, RichMessage } from '../channel-transport';
import type { Page } from '../conversations/conversations.service';
import type { MessageTemplate } from './channel-message.dto';
import type { DeliveryDto, ListDeliveriesQueryDto } from './delivery.dto';

/** One message to one recipient, checked by channels (channel usable, recipient, window). */
export interface OutgoingMessage {
  organizationId: string;
  channelId: string;
  kind: ChannelKind;
  /** An E.164 phone (WhatsApp) or a page-scoped id (Messenger). */
  recipient: string;
  /** Text, a template, or a kind's rich message (with its text, if it has one). */
  content: { text: string } | { template: MessageTemplate } | { rich: RichMessage; text?: string };
  /** The recipient opted out of the channel: the delivery is recorded `skipped`, never sent. */
  optedOut: boolean;
  /** The key this request holds: the delivery is recorded as its resource, atomically. */
  idempotency?: IdempotentRequest;
}

/**
 * Where messages sent now go: an outbox that sends them with retries, statuses and opt-outs, and
 * keeps every channel's deliveries. The scheduler's outbox (the `deliveries` table) is the one;
 * it registers itself with `ChannelMessagesService.useOutbox`, so channels never import it.
 */
export interface MessageOutbox {
  /** Queues the message and answers its delivery, `pending` (or `skipped` when opted out). */
  queue(message: OutgoingMessage): Promise<DeliveryDto>;
  /** A delivery of the organization as queuing answered it (no attempts), for a replay. */
  find(organizationId: string, deliveryId: string): Promise<DeliveryDto | undefined>;
  /** The channel's deliveries, newest first, each with its latest attempts. */
  list(
    organizationId: string,
    channelId: string,
    query: ListDeliveriesQueryDto,
  ): Promise<Page<DeliveryDto>>;
}
