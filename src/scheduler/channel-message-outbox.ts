import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Page } from '../channels';
import {
  ChannelMessagesService,
  DeliveryDto,
  ListDeliveriesQueryDto,
  MessageOutbox,
  OutgoingMessage,
} from '../channels';
import { Clock } from '../common/clock';
import { uuidv7 } from '../common/ids';
import { IdempotencyKeys } from '../common/idempotency/idempotency-keys';
import { DeliveryEntity } from './entities/delivery.entity';
import { toDeliveryResponse } from './delivery/delivery.mapper';
import { FollowUpsService } from './follow-ups.service';
import { SchedulerEngine } from './scheduler.engine';

/**
 * Messages sent now, as deliveries of the outbox without a follow-up: the delivery worker sends
 * them like any other. Registered with channels at init, which decide what may be sent.
 */
@Injectable()
export class ChannelMessageOutbox implements MessageOutbox, OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly messages: ChannelMessagesService,
    private readonly followUps: FollowUpsService,
    private readonly engine: SchedulerEngine,
    private readonly clock: Clock,
    private readonly idempotencyKeys: IdempotencyKeys,
  ) {}

  onModuleInit(): void {
    this.messages.useOutbox(this);
  }

  /** An opted-out recipient's message is recorded `skipped` at once, and never sent. */
  async queue(message: OutgoingMessage): Promise<DeliveryDto> {
    const now = new Date(this.clock.now());
    const { optedOut, recipient, content } = message;
    const delivery: DeliveryEntity = {
      id: uuidv7(now.getTime()),
      organizationId: message.organizationId,
      followUpId: null,
      channelId: message.channelId,
      channelKind: message.kind,
      messageText: 'text' in content && content.text !== undefined ? content.text : null,
      template: 'template' in content ? content.template : null,
      content: 'rich' in content ? content.rich : null,
      occurrenceAt: now,
      phone: recipient,
      status: optedOut ? 'skipped' : 'pending',
      attempts: 0,
      nextAttemptAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
      lastErrorCode: optedOut ? 'opted_out' : null,
      lastErrorMessage: optedOut ? `${recipient} opted out of this channel.` : null,
      providerMessageId: null,
      sentAt: null,
      sentBy: null,
      deliveredAt: null,
      readAt: null,
      pricing: null,
      messageType: 'rich' in content ? content.rich.type : 'text' in content ? 'text' : 'template',
      templateRequired: false,
      cancelRequested: false,
      createdAt: now,
      updatedAt: now,
    };
    await this.idempotencyKeys.insertCreated(DeliveryEntity, delivery, message.idempotency);
    if (!optedOut) this.engine.wake();
    return toDeliveryResponse(delivery);
  }

  async find(organizationId: string, deliveryId: string): Promise<DeliveryDto | undefined> {
    const delivery = await this.dataSource.manager.findOneBy(DeliveryEntity, {
      organizationId,
      id: deliveryId,
    });
    return delivery ? toDeliveryResponse(delivery) : undefined;
  }

  async list(
    organizationId: string,
    channelId: string,
    query: ListDeliveriesQueryDto,
  ): Promise<Page<DeliveryDto>> {
    const where = {
      organizationId,
      channelId,
      ...(query.status !== undefined && { status: query.status }),
    };
    const order = { createdAt: 'DESC', id: 'DESC' } as const;
    const { attempts, ...page } = await this.followUps.deliveryPage(
      organizationId,
      { where, order },
      query,
    );
    return {
      ...page,
      items: page.items.map((delivery) => toDeliveryResponse(delivery, attempts.get(delivery.id))),
    };
  }
}
