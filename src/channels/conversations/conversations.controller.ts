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

const mapPage = <T, R>(page: Page<T>, map: (item: T) => R) => ({
  items: page.items.map(map),
  offset: page.offset,
  total_count: page.total_count,
});

/** What clients wrote to a channel, and who asked it not to write to them. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401, 404)
@Controller('v1/channels')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get('whatsapp/:id/messages')
  @ApiOperation({
    summary: 'Inbound messages of a WhatsApp channel, newest first',
    operationId: 'listWhatsappMessages',
  })
  @ApiOkResponse({ type: DataEnvelope(ChannelMessagePageDto) })
  async whatsappMessages(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListChannelMessagesQueryDto,
  ) {
    return mapPage(
      await this.conversations.listMessages(principal, 'whatsapp', id, query),
      toChannelMessageResponse,
    );
  }

  @Get('messanger/:id/messages')
  @ApiOperation({
    summary: 'Inbound messages of a Messanger channel, newest first',
    operationId: 'listMessangerMessages',
  })
  @ApiOkResponse({ type: DataEnvelope(ChannelMessagePageDto) })
  async messangerMessages(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListChannelMessagesQueryDto,
  ) {
    return mapPage(
      await this.conversations.listMessages(principal, 'messanger', id, query),
      toChannelMessageResponse,
    );
  }

  @Get('whatsapp/:id/opt-outs')
  @ApiOperation({
    summary: 'Numbers opted out of a WhatsApp channel',
    operationId: 'listWhatsappOptOuts',
  })
  @ApiOkResponse({ type: DataEnvelope(OptOutPageDto) })
  async optOuts(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: PaginationQueryDto,
  ) {
    return mapPage(await this.conversations.listOptOuts(principal, id, query), toOptOutResponse);
  }

  @Put('whatsapp/:id/opt-outs/:phone')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Opt a number out of a WhatsApp channel',
    operationId: 'optOutWhatsappNumber',
  })
  @ApiNoContentResponse()
  async optOut(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('phone') phone: string,
  ): Promise<void> {
    await this.conversations.optOut(principal, id, phone);
  }

  @Delete('whatsapp/:id/opt-outs/:phone')
  @HttpCode(204)
  @ApiOperation({ summary: 'Opt a number back in', operationId: 'optInWhatsappNumber' })
  @ApiNoContentResponse()
  async optIn(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('phone') phone: string,
  ): Promise<void> {
    await this.conversations.optIn(principal, id, phone);
  }
}
