import { Controller, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiNoContentResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal } from '../../../common/auth/principal';
import { ApiProblemResponses } from '../../../common/http/openapi.decorators';
import { OptionalBody } from '../../../common/http/optional-body.decorator';
import { notFoundDetail } from '../../../common/http/problem';
import { ApiWhatsappChannelId } from '../../channels.openapi';
import { GRAPH_ACTION_PROBLEMS } from '../meta/graph-call';
import { MarkWhatsappMessageReadDto } from './whatsapp-read-receipt.dto';
import { WhatsappReadReceiptsService } from './whatsapp-read-receipts.service';

/** The message of the webhook notification example (receiveWhatsappWebhook): one the channel got. */
const MESSAGE_ID_EXAMPLE = 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdGQjQ5RkY0QjA2NkQ5QTc2RgA=';

/** Read receipts and the typing indicator of a WhatsApp channel, sent to Meta at once. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(401)
@Controller('v1/channels')
export class WhatsappReadReceiptsController {
  constructor(private readonly receipts: WhatsappReadReceiptsService) {}

  @Post('whatsapp/:id/messages/:message_id/read')
  @HttpCode(204)
  @ApiOperation({
    summary: "Mark a client's WhatsApp message read (blue ticks), optionally showing typing",
    operationId: 'markWhatsappMessageRead',
    description:
      'Marks an inbound message read (and, with Meta, the earlier ones of the conversation), and with `typing: true` shows the client a typing indicator until the next message goes out or for 25 seconds: Graph `POST /{number_id}/messages` `{ messaging_product: "whatsapp", status: "read", message_id, typing_indicator: { type: "text" } }`, sent at once (not through the outbox). The message must be one the channel received (listed in its messages): any other id, another channel\'s included, answers 404. The body is optional. 204 once Meta accepted it.',
  })
  @ApiWhatsappChannelId()
  @ApiParam({
    name: 'message_id',
    description:
      "Meta's id of the client's message (`message_id` of an item of GET /v1/channels/whatsapp/{id}/messages, a `wamid.…`).",
    example: MESSAGE_ID_EXAMPLE,
  })
  @ApiBody({
    type: MarkWhatsappMessageReadDto,
    required: false,
    examples: {
      read_and_typing: {
        summary: 'Read, and show the client you are typing the answer',
        value: { typing: true },
      },
      read: { summary: 'Read only', value: {} },
    },
  })
  @ApiNoContentResponse({ description: 'Meta marked the message read.' })
  @ApiProblemResponses(
    { code: 'validation_failed', detail: 'The message id is not valid.' },
    { code: 'not_found', detail: notFoundDetail('Message') },
    ...GRAPH_ACTION_PROBLEMS('mark the message read'),
  )
  async markWhatsappMessageRead(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('message_id') messageId: string,
    @OptionalBody() dto: MarkWhatsappMessageReadDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const gone = new AbortController();
    response.once('close', () => gone.abort());
    await this.receipts.markRead(principal, id, messageId, dto, gone.signal);
  }
}
