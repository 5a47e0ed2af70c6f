import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChannelMessageSender, describeUnusable } from '../channels/channel-message-sender';
import type { ChannelKind } from '../channels/channel-transport';
import { ChannelConversations } from '../channels/conversations/channel-conversations';
import { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { DEFAULT_PAGE_SIZE } from '../common/http/pagination.dto';
import { notFound, ProblemException, validationFailed } from '../common/http/problem';
import { uuidv7 } from '../common/ids';
import { IdempotencyKeys, IdempotentRequest } from '../common/idempotency/idempotency-keys';
import { describePhoneProblem, toE164 } from '../common/phone-number';
import { ListDeliveriesQueryDto } from '../channels/messages/delivery.dto';
import {
  SendMessangerMessageDto,
  SendWhatsappMessageDto,
  toMessageTemplate,
} from '../channels/messages/channel-message.dto';
import { DeliveryEntity } from './entities/delivery.entity';
import { FollowUpsService } from './follow-ups.service';
import { DeliveryAttemptRow } from './follow-up.mapper';
import { SchedulerEngine } from './scheduler.engine';

const CHANNEL_NAMES: Record<ChannelKind, string> = {
  whatsapp: 'WhatsApp channel',
  messanger: 'Messanger channel',
};

interface SendOptions {
  /** The channel must also be this agent's (the Agentline toolkit sends as its agent). */
  agentId?: string;
  idempotency?: IdempotentRequest;
}

/**
 * Messages sent now (the agent answers a client): a delivery of their own, through the same outbox
 * as follow-ups, so rate limits, retries, statuses and opt-outs apply alike.
 */
@Injectable()
export class ChannelMessagesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly channels: ChannelMessageSender,
    private readonly conversations: ChannelConversations,
    private readonly followUps: FollowUpsService,
    private readonly engine: SchedulerEngine,
    private readonly clock: Clock,
    private readonly idempotencyKeys: IdempotencyKeys,
  ) {}

  async sendWhatsapp(
    principal: Principal,
    channelId: string,
    dto: SendWhatsappMessageDto,
    { agentId, idempotency }: SendOptions = {},
  ): Promise<DeliveryEntity> {
    if (idempotency?.resourceId) return this.delivery(principal, idempotency.resourceId);
    if ((dto.text === undefined) === (dto.template === undefined)) {
      throw validationFailed(
        [
          {
            field: dto.text === undefined ? 'text' : 'template',
            message: 'send text or template, exactly one',
          },
        ],
        'Send text or a template, exactly one.',
      );
    }
    const to = toE164(dto.to);
    if ('problem' in to) {
      throw validationFailed([{ field: 'to', message: describePhoneProblem(dto.to, to.problem) }]);
    }
    await this.assertUsable(principal, 'whatsapp', channelId, agentId);
    return this.enqueue(
      principal,
      'whatsapp',
      channelId,
      to.number,
      { text: dto.text ?? null, template: dto.template ? toMessageTemplate(dto.template) : null },
      idempotency,
    );
  }

  /** Messenger only answers inside its 24-hour window: outside it the send is refused here. */
  async sendMessanger(
    principal: Principal,
    channelId: string,
    dto: SendMessangerMessageDto,
    { agentId, idempotency }: SendOptions = {},
  ): Promise<DeliveryEntity> {
    if (idempotency?.resourceId) return this.delivery(principal, idempotency.resourceId);
    await this.assertUsable(principal, 'messanger', channelId, agentId);
    const state = await this.conversations.state({ channelId, recipient: dto.to });
    if (!state.optedOut && !state.windowOpen) {
      throw new ProblemException(
        'outside_messaging_window',
        `${dto.to} has not written to this page in the last 24 hours; Messenger only accepts replies (messaging_type RESPONSE) within that window.`,
      );
    }
    return this.enqueue(
      principal,
      'messanger',
      channelId,
      dto.to,
      { text: dto.text, template: null },
      idempotency,
    );
  }

  /**
   * The delivery an earlier run of the same idempotent request committed (its answer was lost to
   * a crash): answered as it is now, never queued again.
   */
  private async delivery(principal: Principal, id: string): Promise<DeliveryEntity> {
    const delivery = await this.dataSource.manager.findOneBy(DeliveryEntity, {
      organizationId: principal.organizationId,
      id,
    });
    if (!delivery) throw notFound('Delivery');
    return delivery;
  }

  async deliveries(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    query: ListDeliveriesQueryDto,
  ): Promise<{
    items: DeliveryEntity[];
    attempts: Map<string, DeliveryAttemptRow[]>;
    offset: number;
    total_count: number;
  }> {
    const unusable = await this.channels.check(
      { organizationId: principal.organizationId, channelId },
      { kind },
    );
    if (unusable?.reason === 'not_found' || unusable?.reason === 'wrong_kind') {
      throw notFound(CHANNEL_NAMES[kind]);
    }
    const offset = query.offset ?? 0;
    const [items, total] = await this.dataSource.manager.findAndCount(DeliveryEntity, {
      where: {
        organizationId: principal.organizationId,
        channelId,
        ...(query.status !== undefined && { status: query.status }),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return {
      items,
      attempts: await this.followUps.attempts(principal.organizationId, items),
      offset,
      total_count: total,
    };
  }

  /** 404 for a channel not in the organization (or of the other kind); 422 when it cannot send. */
  private async assertUsable(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    agentId?: string,
  ) {
    const unusable = await this.channels.check(
      { organizationId: principal.organizationId, channelId },
      { kind, agentId },
    );
    if (!unusable) return;
    if (unusable.reason === 'not_found' || unusable.reason === 'wrong_kind') {
      throw notFound(CHANNEL_NAMES[kind]);
    }
    throw new ProblemException(
      'channel_not_usable',
      describeUnusable(unusable, { channelId, agentId: agentId ?? '', wrongKind: '' }),
    );
  }

  /** An opted-out recipient's message is recorded `skipped` at once, and never sent. */
  private async enqueue(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    to: string,
    message: { text: string | null; template: DeliveryEntity['template'] },
    idempotency: IdempotentRequest | undefined,
  ): Promise<DeliveryEntity> {
    const now = new Date(this.clock.now());
    const state = await this.conversations.state({ channelId, recipient: to });
    const delivery: DeliveryEntity = {
      id: uuidv7(now.getTime()),
      organizationId: principal.organizationId,
      followUpId: null,
      channelId,
      channelKind: kind,
      messageText: message.text,
      template: message.template,
      occurrenceAt: now,
      phone: to,
      status: state.optedOut ? 'skipped' : 'pending',
      attempts: 0,
      nextAttemptAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
      lastErrorCode: state.optedOut ? 'opted_out' : null,
      lastErrorMessage: state.optedOut ? `${to} opted out of this channel.` : null,
      waMessageId: null,
      sentAt: null,
      sentBy: null,
      deliveredAt: null,
      readAt: null,
      messageType: message.text === null ? 'template' : 'text',
      templateRequired: false,
      cancelRequested: false,
      createdAt: now,
      updatedAt: now,
    };
    await this.idempotencyKeys.insertCreated(DeliveryEntity, delivery, idempotency);
    if (!state.optedOut) this.engine.wake();
    return delivery;
  }
}
