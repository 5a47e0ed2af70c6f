import { Injectable } from '@nestjs/common';
import type { Principal } from '../../../common/auth/principal';
import { isRecord } from '../../../common/outbound-http';
import { GraphActions } from '../meta/graph-call';
import type { SendMessangerSenderActionDto } from './messanger-sender-action.dto';
import { MESSANGER_KIND } from './messanger.kind';

/**
 * Messenger's sender actions (Send API, "Sender Actions"): Graph `POST /{page_id}/messages` with
 * `recipient` and `sender_action` only (Meta: any other property goes in a separate request),
 * answered `{ recipient_id }`. Sent at once, not through the outbox: it is no message.
 */
@Injectable()
export class MessangerSenderActionsService {
  constructor(private readonly actions: GraphActions) {}

  async send(
    principal: Principal,
    channelId: string,
    dto: SendMessangerSenderActionDto,
    signal: AbortSignal,
  ): Promise<void> {
    const credentials = await this.actions.open(principal, channelId, MESSANGER_KIND);
    await this.actions.post(credentials, {
      payload: { recipient: { id: dto.to }, sender_action: dto.action },
      accepted: (answer) => isRecord(answer) && typeof answer.recipient_id === 'string',
      cannot: `show ${dto.action}`,
      log: {
        message: `sender action ${dto.action}`,
        fields: { organization_id: principal.organizationId, channel_id: channelId },
      },
      signal,
    });
  }
}
