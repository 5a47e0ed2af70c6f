import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../common/auth/principal';
import {
  ApiProblemResponses,
  DataEnvelope,
  ProblemExample,
} from '../../common/http/openapi.decorators';
import {
  CurrentIdempotentRequest,
  IDEMPOTENCY_PROBLEMS,
  Idempotent,
} from '../../common/idempotency/idempotency.interceptor';
import type { IdempotentRequest } from '../../common/idempotency/idempotency-keys';
import { ApiMessangerChannelId, ApiWhatsappChannelId } from '../channels.openapi';
import { TEMPLATE_INVALID } from '../kinds/whatsapp/templates/template-send-checks';
import { MESSANGER_MESSAGE_EXAMPLES } from '../kinds/messanger/messanger-message.examples';
import { WHATSAPP_RICH_EXAMPLES } from '../kinds/whatsapp/whatsapp-message.examples';
import { ChannelMessagesService } from './channel-messages.service';
import { SendMessangerMessageDto, SendWhatsappMessageDto } from './channel-message.dto';
import { DeliveryDto, DeliveryPageDto, ListDeliveriesQueryDto } from './delivery.dto';

const CHANNEL_INACTIVE: ProblemExample = {
  code: 'channel_not_usable',
  detail:
    'Channel 0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b is inactive; update its access_token to reactivate it.',
};
const OUTSIDE_WINDOW: ProblemExample = {
  code: 'outside_messaging_window',
  detail:
    '6543210987654321 has not written to this page in the last 24 hours; Messenger only accepts replies (messaging_type RESPONSE) within that window.',
};

/**
 * Sending now and a channel's deliveries. Channels decide who may send what to whom; the messages
 * go through the outbox the scheduler registers (`MessageOutbox`), which keeps the deliveries.
 */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/channels')
export class ChannelMessagesController {
  constructor(private readonly messages: ChannelMessagesService) {}

  @Post('whatsapp/:id/messages')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Send a WhatsApp message now (text or a rich message inside the 24-hour window, or a template)',
    operationId: 'sendWhatsappMessage',
    description:
      "Queues a message to one number (`to`), or to a person Meta names only by their business-scoped user id (`to_user_id`), through the outbox and answers 202 with the delivery (its `phone` is the number or the BSUID, its `message_type` what it sends); follow its `status` in the channel deliveries. The message is exactly one of `text`, `template`, `image`, `video`, `audio`, `document`, `sticker`, `location`, `contacts`, `interactive` or `reaction`, optionally quoting a message (`reply_to`); Meta's limits are checked first, each refusal naming the field. A person opted out in any of their forms (another form of the number, their BSUID) gets a delivery already `skipped`.",
  })
  @ApiAcceptedResponse({ type: DataEnvelope(DeliveryDto) })
  @ApiWhatsappChannelId()
  @ApiProblemResponses(413, 415, CHANNEL_INACTIVE, TEMPLATE_INVALID, ...IDEMPOTENCY_PROBLEMS)
  @ApiBody({
    type: SendWhatsappMessageDto,
    examples: {
      text: {
        summary: 'Text: the number must have written to the channel in the last 24 hours',
        value: { to: '+34612345678', text: 'Your order has shipped; it arrives on Thursday.' },
      },
      user_id: {
        summary: 'Text to a user who hides their number (their `from_user_id`), inside the window',
        value: { to_user_id: 'US.13491208655302741918', text: 'Yes, it comes in blue and green.' },
      },
      template: {
        summary: 'A template approved for the number in the WhatsApp Manager (any time)',
        value: {
          to: '+34612345678',
          template: {
            name: 'appointment_reminder',
            language: 'en_US',
            parameters: ['Ana', 'Monday at 10:00'],
          },
        },
      },
      rich_template: {
        summary:
          'A template with an image header, named variables and a URL button (with a catalog, checked against it)',
        value: {
          to: '+34612345678',
          template: {
            name: 'spring_sale',
            language: 'en_US',
            named_parameters: { first_name: 'Ana', offer: '20% off every plant' },
            header: { type: 'image', link: 'https://shop.example.com/spring.jpg' },
            buttons: [{ index: 0, sub_type: 'url', parameter: 'spring' }],
          },
        },
      },
      ...WHATSAPP_RICH_EXAMPLES,
    },
  })
  async sendWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: SendWhatsappMessageDto,
    @CurrentIdempotentRequest() idempotency?: IdempotentRequest,
  ) {
    return this.messages.sendWhatsapp(principal, id, dto, { idempotency });
  }

  @Post('messanger/:id/messages')
  @Idempotent()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Reply on Messenger now (inside its 24-hour window, or with a message tag)',
    operationId: 'sendMessangerMessage',
    description:
      "Queues a reply to a person (PSID) through the outbox and answers 202 with the delivery: `text` (with `quick_replies`) or an `attachment`. 422 outside Messenger's 24-hour window, unless a `tag` allows it (HUMAN_AGENT: within 7 days of the person's last message).",
  })
  @ApiAcceptedResponse({ type: DataEnvelope(DeliveryDto) })
  @ApiMessangerChannelId()
  @ApiProblemResponses(413, 415, OUTSIDE_WINDOW, ...IDEMPOTENCY_PROBLEMS)
  @ApiBody({ type: SendMessangerMessageDto, examples: MESSANGER_MESSAGE_EXAMPLES })
  async sendMessanger(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: SendMessangerMessageDto,
    @CurrentIdempotentRequest() idempotency?: IdempotentRequest,
  ) {
    return this.messages.sendMessanger(principal, id, dto, { idempotency });
  }

  @Get('whatsapp/:id/deliveries')
  @ApiOperation({
    summary: "A WhatsApp channel's deliveries, newest first",
    operationId: 'listWhatsappDeliveries',
    description:
      "Every delivery through the channel (follow-ups' and messages sent now), newest first, optionally by `status`.",
  })
  @ApiOkResponse({ type: DataEnvelope(DeliveryPageDto) })
  @ApiWhatsappChannelId()
  async whatsappDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ) {
    return this.messages.deliveries(principal, 'whatsapp', id, query);
  }

  @Get('messanger/:id/deliveries')
  @ApiOperation({
    summary: "A Messanger channel's deliveries, newest first",
    operationId: 'listMessangerDeliveries',
    description:
      'Every delivery through the Page (messages sent now), newest first, optionally by `status`.',
  })
  @ApiOkResponse({ type: DataEnvelope(DeliveryPageDto) })
  @ApiMessangerChannelId()
  async messangerDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ) {
    return this.messages.deliveries(principal, 'messanger', id, query);
  }
}
