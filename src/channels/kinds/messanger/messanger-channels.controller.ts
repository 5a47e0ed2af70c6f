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
import { CurrentPrincipal, Principal } from '../../../common/auth/principal';
import {
  ApiProblemResponses,
  DataEnvelope,
  PageEnvelope,
  ProblemExample,
} from '../../../common/http/openapi.decorators';
import {
  IDEMPOTENCY_PROBLEMS,
  Idempotent,
} from '../../../common/idempotency/idempotency.interceptor';
import { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ListChannelsQueryDto } from '../../channel-fields';
import { webhookUrl } from '../../channel.mappers';
import { ApiMessangerChannelId } from '../../channels.openapi';
import { ChannelsService, senderIdInUseDetail } from '../../channels.service';
import type { StoredChannel } from '../channel-kind';
import {
  CreateMessangerChannelDto,
  MessangerChannelDto,
  UpdateMessangerChannelDto,
} from './messanger-channel.dto';
import { MESSANGER_KIND, toMessangerChannelResponse } from './messanger.kind';

/** The 409 of a Meta id already bound to a live channel, in any organization (issue 17). */
const PAGE_IN_USE: ProblemExample = {
  code: 'conflict',
  detail: senderIdInUseDetail(MESSANGER_KIND, '1029384756'),
};

/** Messanger channels: create, read, list, modify, remove. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/channels')
export class MessangerChannelsController {
  private readonly publicUrl: string;

  constructor(
    private readonly channels: ChannelsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicUrl = config.publicUrl;
  }

  private readonly respond = (channel: StoredChannel) =>
    toMessangerChannelResponse(channel, webhookUrl(this.publicUrl, channel));

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
    return this.respond(
      await this.channels.create('messanger', principal, {
        agentId: dto.agent_id,
        senderId: dto.user_id,
        accessToken: dto.access_token,
        appSecret: dto.app_secret,
      }),
    );
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
    const page = await this.channels.list('messanger', principal, query);
    return { ...page, items: page.items.map(this.respond) };
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
    return this.respond(await this.channels.get('messanger', principal, id));
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
    return this.respond(
      await this.channels.update('messanger', principal, id, {
        senderId: dto.user_id,
        accessToken: dto.access_token,
        appSecret: dto.app_secret,
      }),
    );
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
    await this.channels.remove('messanger', principal, id);
  }
}
