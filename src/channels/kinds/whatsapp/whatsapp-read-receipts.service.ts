import { Injectable } from '@nestjs/common';
import type { Principal } from '../../../common/auth/principal';
import { notFound, validationFailed } from '../../../common/http/problem';
import { isRecord } from '../../../common/outbound-http';
import { ConversationsService } from '../../conversations/conversations.service';
import { GraphActions } from '../meta/graph-call';
import type { MarkWhatsappMessageReadDto } from './whatsapp-read-receipt.dto';
import { WHATSAPP_KIND } from './whatsapp.kind';

/** Meta's message ids (`wamid.` and base64) with room to spare; nothing with spaces or controls. */
export const WHATSAPP_MESSAGE_ID = /^[\x21-\x7e]{1,256}$/;

/**
 * Marks a client's message read, optionally with the typing indicator (WhatsApp Cloud API, "Mark
 * messages as read" and "Typing indicators"): Graph `POST /{number_id}/messages` with `status:
 * read`, answered `{ success: true }`. Only a message the channel received (it is in the
 * conversation): any other id answers 404 before Meta is asked, as another organization's does.
 */
@Injectable()
export class WhatsappReadReceiptsService {
  constructor(
    private readonly actions: GraphActions,
    private readonly conversations: ConversationsService,
  ) {}

  async markRead(
    principal: Principal,
    channelId: string,
    messageId: string,
    dto: MarkWhatsappMessageReadDto,
    signal: AbortSignal,
  ): Promise<void> {
    if (!WHATSAPP_MESSAGE_ID.test(messageId)) {
      throw validationFailed(
        [{ field: 'message_id', message: 'message_id must be 1 to 256 visible ASCII characters' }],
        'The message id is not valid.',
      );
    }
    const credentials = await this.actions.open(principal, channelId, WHATSAPP_KIND);
    const received = await this.conversations.hasInboundMessage(
      principal.organizationId,
      channelId,
      messageId,
    );
    if (!received) throw notFound('Message');
    await this.actions.post(credentials, {
      payload: {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: messageId,
        ...(dto.typing === true && { typing_indicator: { type: 'text' } }),
      },
      accepted: (answer) => isRecord(answer) && answer.success === true,
      cannot: 'mark the message read',
      log: {
        message: dto.typing === true ? 'read receipt with typing indicator' : 'read receipt',
        fields: {
          organization_id: principal.organizationId,
          channel_id: channelId,
          message_id: messageId,
        },
      },
      signal,
    });
  }
}
