import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import { ApiProblemResponses, DataEnvelope } from '../common/http/openapi.decorators';
import { toMessangerChannelResponse, toWhatsappChannelResponse } from './channel.mappers';
import { ChannelsService } from './channels.service';
import {
  CreateMessangerChannelDto,
  MessangerChannelDto,
  UpdateMessangerChannelDto,
} from './messanger/messanger-channel.dto';
import {
  CreateWhatsappChannelDto,
  UpdateWhatsappChannelDto,
  WhatsappChannelDto,
} from './whatsapp/whatsapp-channel.dto';

@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401, 413, 415)
@Controller('v1/channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Post('whatsapp')
  @ApiOperation({ summary: 'Create a WhatsApp channel', operationId: 'createWhatsappChannel' })
  @ApiCreatedResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiProblemResponses(409)
  async createWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateWhatsappChannelDto,
  ) {
    return toWhatsappChannelResponse(await this.channels.createWhatsappChannel(principal, dto));
  }

  @Put('whatsapp/:id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Modify a WhatsApp channel', operationId: 'updateWhatsappChannel' })
  @ApiOkResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiProblemResponses(404, 409)
  async updateWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateWhatsappChannelDto,
  ) {
    return toWhatsappChannelResponse(await this.channels.updateWhatsappChannel(principal, id, dto));
  }

  @Post('messanger')
  @ApiOperation({ summary: 'Create a Messanger channel', operationId: 'createMessangerChannel' })
  @ApiCreatedResponse({ type: DataEnvelope(MessangerChannelDto) })
  async createMessanger(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateMessangerChannelDto,
  ) {
    return toMessangerChannelResponse(await this.channels.createMessangerChannel(principal, dto));
  }

  @Put('messanger/:id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Modify a Messanger channel', operationId: 'updateMessangerChannel' })
  @ApiOkResponse({ type: DataEnvelope(MessangerChannelDto) })
  @ApiProblemResponses(404)
  async updateMessanger(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateMessangerChannelDto,
  ) {
    return toMessangerChannelResponse(
      await this.channels.updateMessangerChannel(principal, id, dto),
    );
  }
}
