import { Controller, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../common/auth/principal';
import { ApiProblemResponses, DataEnvelope } from '../../common/http/openapi.decorators';
import { PaginationQueryDto } from '../../common/http/pagination.dto';
import {
  ChannelMessagePageDto,
  ListChannelMessagesQueryDto,
  OptOutPageDto,
} from './conversation.dto';
import { toChannelMessageResponse, toOptOutResponse } from './conversation.mappers';
import { ConversationsService, Page } from './conversations.service';
import { ApiMessangerChannelId, ApiPhoneParam, ApiWhatsappChannelId } from '../channels.openapi';

const mapPage = <T, R>(page: Page<T>, map: (item: T) => R) => ({
  items: page.items.map(map),
  offset: page.offset,
  total_count: page.total_count,
});

/** What clients wrote to a channel, and who asked it not to write to them. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/channels')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get('whatsapp/:id/messages')
  @ApiWhatsappChannelId()
  @ApiOperation({
    summary: 'Inbound messages of a WhatsApp channel, newest first',
    operationId: 'listWhatsappMessages',
    description:
      'What clients wrote to the number, as Meta notified it (every message type, each once), optionally only from one number (`from`).',
  })
  @ApiOkResponse({ type: DataEnvelope(ChannelMessagePageDto) })
  async whatsappMessages(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListChannelMessagesQueryDto,
  ) {
    const mediaUrl = this.conversations.mediaUrl('whatsapp', id);
    return mapPage(await this.conversations.listMessages(principal, 'whatsapp', id, query), (m) =>
      toChannelMessageResponse(m, mediaUrl),
    );
  }

  @Get('messanger/:id/messages')
  @ApiMessangerChannelId()
  @ApiOperation({
    summary: 'Inbound messages of a Messanger channel, newest first',
    operationId: 'listMessangerMessages',
    description:
      'What people wrote to the Page, as Meta notified it, optionally only from one PSID (`from`).',
  })
  @ApiOkResponse({ type: DataEnvelope(ChannelMessagePageDto) })
  async messangerMessages(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListChannelMessagesQueryDto,
  ) {
    const mediaUrl = this.conversations.mediaUrl('messanger', id);
    return mapPage(await this.conversations.listMessages(principal, 'messanger', id, query), (m) =>
      toChannelMessageResponse(m, mediaUrl),
    );
  }

  @Get('whatsapp/:id/opt-outs')
  @ApiWhatsappChannelId()
  @ApiOperation({
    summary: 'Numbers opted out of a WhatsApp channel',
    operationId: 'listWhatsappOptOuts',
    description:
      'The numbers that opted out (with a keyword of OPT_OUT_KEYWORDS, or through this API); follow-ups and sends skip them.',
  })
  @ApiOkResponse({ type: DataEnvelope(OptOutPageDto) })
  async optOuts(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: PaginationQueryDto,
  ) {
    return mapPage(
      await this.conversations.listOptOuts(principal, 'whatsapp', id, query),
      toOptOutResponse,
    );
  }

  @Put('whatsapp/:id/opt-outs/:phone')
  @ApiWhatsappChannelId()
  @ApiPhoneParam()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Opt a number out of a WhatsApp channel',
    operationId: 'optOutWhatsappNumber',
    description:
      'Opts a number out by hand: deliveries to it are skipped, including those already in the outbox.',
  })
  @ApiNoContentResponse()
  async optOut(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('phone') phone: string,
  ): Promise<void> {
    await this.conversations.optOut(principal, 'whatsapp', id, phone);
  }

  @Delete('whatsapp/:id/opt-outs/:phone')
  @ApiWhatsappChannelId()
  @ApiPhoneParam()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a number’s opt-out (opt it back in)',
    operationId: 'optInWhatsappNumber',
    description: 'Removes an opt-out: the number receives follow-ups again.',
  })
  @ApiNoContentResponse()
  async optIn(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('phone') phone: string,
  ): Promise<void> {
    await this.conversations.optIn(principal, 'whatsapp', id, phone);
  }
}
