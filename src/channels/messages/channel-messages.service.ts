import { Injectable } from '@nestjs/common';
import { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { notFound, ProblemException, validationFailed } from '../../common/http/problem';
import type { IdempotentRequest } from '../../common/idempotency/idempotency-keys';
import { describePhoneProblem, toE164 } from '../../common/phone-number';
import { ChannelMessageSender, describeUnusable } from '../channel-message-sender';
import type { ChannelKind } from '../channel-transport';
import { ChannelConversations, ConversationState } from '../conversations/channel-conversations';
import { ChannelKinds } from '../kinds/channel-kinds';
import { TemplateSendChecks } from '../kinds/whatsapp/templates/template-send-checks';
import { messangerRichMessage, tagRefusal } from '../kinds/messanger/messanger-rich.payload';
import { whatsappRichMessage } from '../kinds/whatsapp/whatsapp-rich.content';
import type { Page } from '../conversations/conversations.service';
import {
  SendMessangerMessageDto,
  SendWhatsappMessageDto,
  toMessageTemplate,
} from './channel-message.dto';
import { DeliveryDto, ListDeliveriesQueryDto } from './delivery.dto';
import { MessageOutbox, OutgoingMessage } from './message-outbox';

export interface SendOptions {
  /** The channel must also be this agent's (the Agentline toolkit sends as its agent). */
  agentId?: string;
  idempotency?: IdempotentRequest;
}

/**
 * `text`, `template` or a rich message, exactly one (whatsapp-rich.content.ts): the message
 * itself, or a 400 naming the field at fault.
 */
function whatsappContent(dto: SendWhatsappMessageDto): OutgoingMessage['content'] {
  const rich = whatsappRichMessage(dto);
  if (rich) return { rich, ...(dto.text !== undefined && { text: dto.text }) };
  if (dto.text !== undefined) return { text: dto.text };
  return { template: toMessageTemplate(dto.template as NonNullable<typeof dto.template>) };
}

/** Messenger: plain text, or quick replies, an attachment or a tag (messanger-rich.payload.ts). */
function messangerContent(dto: SendMessangerMessageDto): OutgoingMessage['content'] {
  const rich = messangerRichMessage(dto);
  if (rich) return { rich, ...(dto.text !== undefined && { text: dto.text }) };
  return { text: dto.text as string };
}

/**
 * A message that may go outside the kind's messaging window (a Messenger message tag): why it may
 * not go now, or undefined when it may.
 */
type OutsideWindowRule = (state: ConversationState) => string | undefined;

/** Who a WhatsApp message goes to: `to` (a phone) or `to_user_id` (a BSUID), exactly one. */
function whatsappRecipient(dto: SendWhatsappMessageDto): Recipient {
  if (dto.to !== undefined && dto.to_user_id === undefined) return dto.to;
  if (dto.to_user_id !== undefined && dto.to === undefined) return { userId: dto.to_user_id };
  throw validationFailed(
    [
      {
        field: dto.to === undefined ? 'to' : 'to_user_id',
        message: 'send to (a phone number) or to_user_id (a business-scoped user id), exactly one',
      },
    ],
    'Send to or to_user_id, exactly one.',
  );
}

/**
 * Whom to send to: an address as the kind's `recipients` say (a phone number, normalised to E.164,
 * or a scoped id), or a user id the provider gave (WhatsApp's BSUID), taken as given.
 */
export type Recipient = string | { userId: string };

/** A phone recipient in E.164, or a 400 naming `to`. */
function phoneRecipient(to: string): string {
  const phone = toE164(to);
  if ('problem' in phone) {
    throw validationFailed([{ field: 'to', message: describePhoneProblem(to, phone.problem) }]);
  }
  return phone.number;
}

/**
 * Messages sent now (the agent answers a client): who may send what to whom is decided here; the
 * message then becomes a delivery of the outbox follow-ups use, so rate limits, retries, statuses
 * and opt-outs apply alike.
 */
@Injectable()
export class ChannelMessagesService {
  private outbox?: MessageOutbox;

  constructor(
    private readonly channels: ChannelMessageSender,
    private readonly conversations: ChannelConversations,
    private readonly kinds: ChannelKinds,
    private readonly templates: TemplateSendChecks,
    private readonly clock: Clock,
  ) {}

  /** The scheduler hands its outbox over at init: channels never import the scheduler. */
  useOutbox(outbox: MessageOutbox): void {
    if (this.outbox) throw new Error('A message outbox is already registered');
    this.outbox = outbox;
  }

  /** WhatsApp: `text` or `template`, exactly one, to a phone number or a BSUID. */
  sendWhatsapp(
    principal: Principal,
    channelId: string,
    dto: SendWhatsappMessageDto,
    options: SendOptions = {},
  ): Promise<DeliveryDto> {
    return this.send(
      principal,
      'whatsapp',
      channelId,
      whatsappRecipient(dto),
      () => whatsappContent(dto),
      options,
    );
  }

  /**
   * Messenger: text (with quick replies) or an attachment to a page-scoped id, inside the 24-hour
   * window, or outside it with a message tag.
   */
  sendMessanger(
    principal: Principal,
    channelId: string,
    dto: SendMessangerMessageDto,
    options: SendOptions = {},
  ): Promise<DeliveryDto> {
    const { tag } = dto;
    return this.send(principal, 'messanger', channelId, dto.to, () => messangerContent(dto), {
      ...options,
      ...(tag !== undefined && {
        outsideWindow: (state: ConversationState) =>
          tagRefusal(tag, state.lastInboundAt, this.clock.now()),
      }),
    });
  }

  /**
   * One message now, through a channel of any kind: the recipient as the kind addresses people (a
   * phone number is normalised to E.164), the channel usable by this agent, and, for a kind that
   * refuses free text outside its messaging window, a recipient inside it. `content` reads the
   * kind's own request (a 400 there comes before the channel is looked at).
   */
  async send(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    to: Recipient,
    content: () => OutgoingMessage['content'],
    {
      agentId,
      idempotency,
      outsideWindow: allowed,
    }: SendOptions & {
      outsideWindow?: OutsideWindowRule;
    } = {},
  ): Promise<DeliveryDto> {
    const outbox = this.requireOutbox();
    if (idempotency?.resourceId) return this.replay(outbox, principal, idempotency.resourceId);
    const descriptor = this.kinds.get(kind);
    const message = content();
    const recipient =
      typeof to === 'object'
        ? to.userId
        : descriptor.recipients === 'phone'
          ? phoneRecipient(to)
          : to;
    await this.assertUsable(principal, kind, channelId, agentId);
    if ('template' in message) await this.templates.assertSendable(channelId, message.template);
    const state = await this.conversations.state({ channelId, kind, recipient });
    const { outsideWindow } = descriptor;
    if (typeof outsideWindow === 'object' && !state.optedOut && !state.windowOpen) {
      const refusal = allowed ? allowed(state) : outsideWindow.refusal(recipient);
      if (refusal !== undefined) throw new ProblemException('outside_messaging_window', refusal);
    }
    return outbox.queue({
      organizationId: principal.organizationId,
      channelId,
      kind,
      recipient,
      content: message,
      optedOut: state.optedOut,
      idempotency,
    });
  }

  async deliveries(
    principal: Principal,
    kind: ChannelKind,
    channelId: string,
    query: ListDeliveriesQueryDto,
  ): Promise<Page<DeliveryDto>> {
    const outbox = this.requireOutbox();
    const unusable = await this.channels.check(
      { organizationId: principal.organizationId, channelId },
      { kind },
    );
    if (unusable?.reason === 'not_found' || unusable?.reason === 'wrong_kind') {
      throw notFound(`${this.kinds.get(kind).label} channel`);
    }
    return outbox.list(principal.organizationId, channelId, query);
  }

  /**
   * The delivery an earlier run of the same idempotent request committed (its answer was lost to
   * a crash): answered as it is now, never queued again.
   */
  private async replay(
    outbox: MessageOutbox,
    principal: Principal,
    deliveryId: string,
  ): Promise<DeliveryDto> {
    const delivery = await outbox.find(principal.organizationId, deliveryId);
    if (!delivery) throw notFound('Delivery');
    return delivery;
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
      throw notFound(`${this.kinds.get(kind).label} channel`);
    }
    throw new ProblemException(
      'channel_not_usable',
      describeUnusable(unusable, {
        channelId,
        agentId: agentId ?? '',
        label: this.kinds.get(kind).label,
        wrongKind: '',
      }),
    );
  }

  /** A service built without the scheduler has nowhere to queue a message, nor deliveries to list. */
  private requireOutbox(): MessageOutbox {
    if (this.outbox) return this.outbox;
    throw new ProblemException(
      'outbox_unavailable',
      'This service runs without the scheduler, whose outbox sends every message: nothing can be sent now, and there are no deliveries to list.',
    );
  }
}
