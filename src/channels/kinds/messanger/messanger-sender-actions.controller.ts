import { Body, Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiNoContentResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal } from '../../../common/auth/principal';
import { ApiProblemResponses } from '../../../common/http/openapi.decorators';
import { notFoundDetail } from '../../../common/http/problem';
import { ApiMessangerChannelId } from '../../channels.openapi';
import { GRAPH_ACTION_PROBLEMS } from '../meta/graph-call';
import { SendMessangerSenderActionDto } from './messanger-sender-action.dto';
import { MessangerSenderActionsService } from './messanger-sender-actions.service';

/** Typing indicators and "seen" on a Messanger channel, sent to Meta at once. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(401)
@Controller('v1/channels')
export class MessangerSenderActionsController {
  constructor(private readonly senderActions: MessangerSenderActionsService) {}

  @Post('messanger/:id/sender-actions')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Show a person typing, or mark their messages seen, on Messenger',
    operationId: 'sendMessangerSenderAction',
    description:
      'Sends a sender action to a person (PSID) at once, not through the outbox: Graph `POST /{page_id}/messages` `{ recipient: { id }, sender_action }` (Messenger Send API, "Sender Actions"). `typing_on` shows the typing bubble until the Page\'s next message or for 20 seconds, `typing_off` hides it, `mark_seen` marks the person\'s last message seen. 204 once Meta accepted it.',
  })
  @ApiMessangerChannelId()
  @ApiBody({
    type: SendMessangerSenderActionDto,
    examples: {
      typing_on: {
        summary: 'Show the person of the notification example that the Page is typing',
        value: { to: '6543210987654321', action: 'typing_on' },
      },
      mark_seen: {
        summary: "Mark that person's last message seen",
        value: { to: '6543210987654321', action: 'mark_seen' },
      },
    },
  })
  @ApiNoContentResponse({ description: 'Meta accepted the sender action.' })
  @ApiProblemResponses(
    { code: 'validation_failed', detail: 'The request is not valid.' },
    { code: 'not_found', detail: notFoundDetail('Messanger channel') },
    ...GRAPH_ACTION_PROBLEMS('show typing_on'),
  )
  async sendMessangerSenderAction(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: SendMessangerSenderActionDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const gone = new AbortController();
    response.once('close', () => gone.abort());
    await this.senderActions.send(principal, id, dto, gone.signal);
  }
}
