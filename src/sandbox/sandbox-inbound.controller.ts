import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import { ApiProblemResponses, DataEnvelope } from '../common/http/openapi.decorators';
import { notFoundDetail } from '../common/http/problem';
import { SandboxInboundDto, SandboxInboundResultDto } from './dto/sandbox-inbound.dto';
import { SANDBOX_OFF, SandboxInbound } from './sandbox-inbound.service';

const WHATSAPP_EXAMPLES = {
  text: { summary: 'A text', value: { from: '+34612345678', text: 'Hi! Is my order on its way?' } },
  stop: { summary: 'The client opts out', value: { from: '+34612345678', text: 'STOP' } },
  button_reply: {
    summary: 'A tap on a reply button',
    value: {
      from: '+34612345678',
      message: {
        type: 'interactive',
        interactive: { type: 'button_reply', button_reply: { id: 'confirm', title: 'Confirm' } },
      },
    },
  },
  location: {
    summary: 'A location',
    value: {
      from: '+34612345678',
      message: {
        type: 'location',
        location: { latitude: 40.4168, longitude: -3.7038, name: 'Puerta del Sol' },
      },
    },
  },
  image: {
    summary: 'An image uploaded first (POST /v1/channels/whatsapp/{id}/media)',
    value: {
      from: '+34612345678',
      message: { type: 'image', image: { id: '1234567890987654', caption: 'The parcel' } },
    },
  },
};

const MESSANGER_EXAMPLES = {
  text: { summary: 'A text', value: { from: '6254837462903845', text: 'Do you ship to Lisbon?' } },
  quick_reply: {
    summary: 'A tap on a quick reply',
    value: {
      from: '6254837462903845',
      message: { text: 'Yes', quick_reply: { payload: 'CONFIRM_ORDER' } },
    },
  },
};

const description = (kind: string, webhook: string) =>
  `Sandbox only (META_SANDBOX=true): a simulated ${kind} client writes to the channel. The sandbox builds Meta's notification for it, signs it with X-Hub-Signature-256 as Meta does and POSTs it to the channel's own webhook (\`${webhook}\`), which verifies, stores and processes it as any of Meta's: the agent gets its event. \`202\` with the message's id once the webhook answered; \`state: failed\` when it refused it. See docs/sandbox.md.`;

/** Simulated clients of sandbox channels (docs/sandbox.md); 404 unless META_SANDBOX=true. */
@ApiTags('sandbox')
@ApiBearerAuth()
@ApiProblemResponses(401)
@Controller('sandbox')
export class SandboxInboundController {
  constructor(private readonly inbound: SandboxInbound) {}

  @Post('whatsapp/:channel_id/inbound')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Sandbox: a simulated client writes to a WhatsApp channel',
    operationId: 'simulateWhatsappInbound',
    description: description('WhatsApp', 'POST /v1/webhooks/whatsapp/{channel_id}'),
  })
  @ApiParam({
    name: 'channel_id',
    description: "The WhatsApp channel's id (`data.id` of POST /v1/channels/whatsapp).",
  })
  @ApiBody({ type: SandboxInboundDto, examples: WHATSAPP_EXAMPLES })
  @ApiAcceptedResponse({
    type: DataEnvelope(SandboxInboundResultDto),
    description: 'The message went to the webhook.',
  })
  @ApiProblemResponses(
    {
      code: 'validation_failed',
      detail: 'The request is not valid: from must be an E.164 phone number, such as +34612345678.',
    },
    { code: 'not_found', detail: notFoundDetail('WhatsApp channel') },
    { code: 'not_found', detail: SANDBOX_OFF },
  )
  whatsapp(
    @CurrentPrincipal() principal: Principal,
    @Param('channel_id') channelId: string,
    @Body() body: SandboxInboundDto,
  ): Promise<SandboxInboundResultDto> {
    return this.inbound.write('whatsapp', principal, channelId, body);
  }

  @Post('messanger/:channel_id/inbound')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Sandbox: a simulated client writes to a Messenger channel',
    operationId: 'simulateMessangerInbound',
    description: description('Messenger', 'POST /v1/webhooks/messanger/{channel_id}'),
  })
  @ApiParam({
    name: 'channel_id',
    description: "The Messenger channel's id (`data.id` of POST /v1/channels/messanger).",
  })
  @ApiBody({ type: SandboxInboundDto, examples: MESSANGER_EXAMPLES })
  @ApiAcceptedResponse({
    type: DataEnvelope(SandboxInboundResultDto),
    description: 'The message went to the webhook.',
  })
  @ApiProblemResponses(
    {
      code: 'validation_failed',
      detail: 'The request is not valid: from must be a page-scoped id (digits).',
    },
    { code: 'not_found', detail: notFoundDetail('Messanger channel') },
    { code: 'not_found', detail: SANDBOX_OFF },
  )
  messanger(
    @CurrentPrincipal() principal: Principal,
    @Param('channel_id') channelId: string,
    @Body() body: SandboxInboundDto,
  ): Promise<SandboxInboundResultDto> {
    return this.inbound.write('messanger', principal, channelId, body);
  }
}
