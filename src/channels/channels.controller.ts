import { IDEMPOTENCY_PROBLEMS, Idempotent } from '../common/idempotency/idempotency.interceptor';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import {
  ApiProblemResponses,
  DataEnvelope,
  PageEnvelope,
  ProblemExample,
} from '../common/http/openapi.decorators';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { ListChannelsQueryDto } from './channel-fields';
import { toMessangerChannelResponse, toWhatsappChannelResponse } from './channel.mappers';
import { ChannelsService, metaIdInUseDetail } from './channels.service';
import {
  CreateMessangerChannelDto,
  MessangerChannelDto,
  UpdateMessangerChannelDto,
} from './kinds/messanger/messanger-channel.dto';
import {
  CreateWhatsappChannelDto,
  UpdateWhatsappChannelDto,
  WhatsappChannelDto,
} from './kinds/whatsapp/whatsapp-channel.dto';
import { MessangerChannelEntity } from './kinds/messanger/messanger-channel.entity';
import { WhatsappChannelEntity } from './kinds/whatsapp/whatsapp-channel.entity';
import { ApiMessangerChannelId, ApiWhatsappChannelId } from './channels.openapi';

/** The 409 of a Meta id already bound to a live channel, in any organization (issue 17). */
const NUMBER_IN_USE: ProblemExample = {
  code: 'conflict',
  detail: metaIdInUseDetail('whatsapp', '106540352242922'),
};
const PAGE_IN_USE: ProblemExample = {
  code: 'conflict',
  detail: metaIdInUseDetail('messanger', '1029384756'),
};

@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/channels')
export class ChannelsController {
  private readonly publicUrl: string;

  constructor(
    private readonly channels: ChannelsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicUrl = config.publicUrl;
  }

  private whatsapp = (channel: WhatsappChannelEntity) =>
    toWhatsappChannelResponse(channel, this.publicUrl);
  private messanger = (channel: MessangerChannelEntity) =>
    toMessangerChannelResponse(channel, this.publicUrl);

  @Post('whatsapp')
  @Idempotent()
  @ApiOperation({
    summary: 'Create a WhatsApp channel',
    operationId: 'createWhatsappChannel',
    description:
      "Binds a WhatsApp Cloud API phone number (its `number_id` and a Meta access token) to an agent. The token is stored encrypted and never returned. The answer's `webhook_url` and `verification_token` go into the Meta App Dashboard. A `number_id` belongs to one channel at a time, across organizations: one already bound answers 409 until that channel is removed. With `app_secret`, the channel's notifications are verified with that secret alone.",
  })
  @ApiCreatedResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiProblemResponses(413, 415, NUMBER_IN_USE, ...IDEMPOTENCY_PROBLEMS)
  async createWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateWhatsappChannelDto,
  ) {
    return this.whatsapp(await this.channels.createWhatsappChannel(principal, dto));
  }

  @Get('whatsapp')
  @ApiOperation({
    summary: 'List WhatsApp channels, newest first',
    operationId: 'listWhatsappChannels',
    description:
      "The organization's WhatsApp channels for one agent (`agent_id`), paged with `offset` and `limit`.",
  })
  @ApiOkResponse({ type: PageEnvelope(WhatsappChannelDto) })
  async listWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListChannelsQueryDto,
  ) {
    const page = await this.channels.listWhatsappChannels(principal, query);
    return { ...page, items: page.items.map(this.whatsapp) };
  }

  @Get('whatsapp/:id')
  @ApiOperation({
    summary: 'Get a WhatsApp channel',
    operationId: 'getWhatsappChannel',
    description:
      'One WhatsApp channel of the organization, with its `status` and, when Meta refused its token, `status_reason`.',
  })
  @ApiOkResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiWhatsappChannelId()
  async getWhatsapp(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.whatsapp(await this.channels.getWhatsappChannel(principal, id));
  }

  @Put('whatsapp/:id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Modify a WhatsApp channel',
    operationId: 'updateWhatsappChannel',
    description:
      'A new `access_token`, `number_id` or `app_secret`, or several of them. A new token is how an inactive channel becomes `active` again.',
  })
  @ApiOkResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiWhatsappChannelId()
  @ApiProblemResponses(413, 415, NUMBER_IN_USE)
  async updateWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateWhatsappChannelDto,
  ) {
    return this.whatsapp(await this.channels.updateWhatsappChannel(principal, id, dto));
  }

  @Delete('whatsapp/:id')
  @HttpCode(204)
  @ApiOperation({
    summary:
      'Remove a WhatsApp channel: its pending deliveries are cancelled, its follow-ups stop, its webhooks answer 403',
    operationId: 'deleteWhatsappChannel',
    description:
      'Soft delete: the channel disappears, its follow-ups end, pending deliveries are cancelled, and its webhook URL answers 403. The number can be bound again.',
  })
  @ApiNoContentResponse()
  @ApiWhatsappChannelId()
  async deleteWhatsapp(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    await this.channels.removeChannel(principal, 'whatsapp', id);
  }

  @Post('messanger')
  @Idempotent()
  @ApiOperation({
    summary: 'Create a Messanger channel',
    operationId: 'createMessangerChannel',
    description:
      "Binds a Facebook Page (its id as `user_id`, and a Page access token) to an agent. The token is stored encrypted and never returned. A `user_id` belongs to one channel at a time, across organizations: one already bound answers 409 until that channel is removed. With `app_secret`, the channel's notifications are verified with that secret alone.",
  })
  @ApiCreatedResponse({ type: DataEnvelope(MessangerChannelDto) })
  @ApiProblemResponses(413, 415, PAGE_IN_USE, ...IDEMPOTENCY_PROBLEMS)
  async createMessanger(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateMessangerChannelDto,
  ) {
    return this.messanger(await this.channels.createMessangerChannel(principal, dto));
  }

  @Get('messanger')
  @ApiOperation({
    summary: 'List Messanger channels, newest first',
    operationId: 'listMessangerChannels',
    description:
      "The organization's Messenger channels for one agent (`agent_id`), paged with `offset` and `limit`.",
  })
  @ApiOkResponse({ type: PageEnvelope(MessangerChannelDto) })
  async listMessanger(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListChannelsQueryDto,
  ) {
    const page = await this.channels.listMessangerChannels(principal, query);
    return { ...page, items: page.items.map(this.messanger) };
  }

  @Get('messanger/:id')
  @ApiOperation({
    summary: 'Get a Messanger channel',
    operationId: 'getMessangerChannel',
    description:
      'One Messenger channel of the organization; `status_reason` says why Meta stopped accepting its token, if it did.',
  })
  @ApiOkResponse({ type: DataEnvelope(MessangerChannelDto) })
  @ApiMessangerChannelId()
  async getMessanger(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.messanger(await this.channels.getMessangerChannel(principal, id));
  }

  @Put('messanger/:id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Modify a Messanger channel',
    operationId: 'updateMessangerChannel',
    description:
      'A new Page id (`user_id`) and Page access token, and optionally a new `app_secret`.',
  })
  @ApiOkResponse({ type: DataEnvelope(MessangerChannelDto) })
  @ApiMessangerChannelId()
  @ApiProblemResponses(413, 415, PAGE_IN_USE)
  async updateMessanger(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateMessangerChannelDto,
  ) {
    return this.messanger(await this.channels.updateMessangerChannel(principal, id, dto));
  }

  @Delete('messanger/:id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a Messanger channel; its webhooks answer 403',
    operationId: 'deleteMessangerChannel',
    description:
      'Soft delete: the channel disappears, its pending deliveries are cancelled, and its webhook URL answers 403.',
  })
  @ApiNoContentResponse()
  @ApiMessangerChannelId()
  async deleteMessanger(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    await this.channels.removeChannel(principal, 'messanger', id);
  }
}
