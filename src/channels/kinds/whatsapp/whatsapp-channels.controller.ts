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
import { validationFailed } from '../../../common/http/problem';
import {
  IDEMPOTENCY_PROBLEMS,
  Idempotent,
} from '../../../common/idempotency/idempotency.interceptor';
import { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { ListChannelsQueryDto } from '../../channel-fields';
import { webhookUrl } from '../../channel.mappers';
import { ApiWhatsappChannelId } from '../../channels.openapi';
import { ChannelsService, senderIdInUseDetail } from '../../channels.service';
import type { StoredChannel } from '../channel-kind';
import {
  CreateWhatsappChannelDto,
  WhatsappChannelDto,
  UpdateWhatsappChannelDto,
} from './whatsapp-channel.dto';
import { WHATSAPP_KIND, toWhatsappChannelResponse } from './whatsapp.kind';
import { WhatsappTemplateSync } from './templates/whatsapp-template-sync';

/** The 409 of a Meta id already bound to a live channel, in any organization (issue 17). */
const NUMBER_IN_USE: ProblemExample = {
  code: 'conflict',
  detail: senderIdInUseDetail(WHATSAPP_KIND, '106540352242922'),
};

/** Whatsapp channels: create, read, list, modify, remove. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/channels')
export class WhatsappChannelsController {
  private readonly publicUrl: string;

  constructor(
    private readonly channels: ChannelsService,
    private readonly templates: WhatsappTemplateSync,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.publicUrl = config.publicUrl;
  }

  private readonly respond = (channel: StoredChannel) =>
    toWhatsappChannelResponse(channel, webhookUrl(this.publicUrl, channel));

  @Post('whatsapp')
  @Idempotent()
  @ApiOperation({
    summary: 'Create a WhatsApp channel',
    operationId: 'createWhatsappChannel',
    description:
      "Binds a WhatsApp Cloud API phone number (its `number_id` and a Meta access token) to an agent. The token is stored encrypted and never returned. The answer's `webhook_url` and `verification_token` go into the Meta App Dashboard. A `number_id` belongs to one channel at a time, across organizations: one already bound answers 409 until that channel is removed. With `app_secret`, the channel's notifications are verified with that secret alone. With `business_account_id`, the account's template catalog is synced right after the answer (`templates.synced_at` says when it is done).",
  })
  @ApiCreatedResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiProblemResponses(413, 415, NUMBER_IN_USE, ...IDEMPOTENCY_PROBLEMS)
  async createWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateWhatsappChannelDto,
  ) {
    const channel = await this.channels.create('whatsapp', principal, {
      agentId: dto.agent_id,
      senderId: dto.number_id,
      accessToken: dto.access_token,
      appSecret: dto.app_secret,
      own: this.templates.ownColumnsOnCreate(dto.business_account_id),
    });
    if (dto.business_account_id !== undefined) this.templates.wake();
    return this.respond(channel);
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
    const page = await this.channels.list('whatsapp', principal, query);
    return { ...page, items: page.items.map(this.respond) };
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
    return this.respond(await this.channels.get('whatsapp', principal, id));
  }

  @Put('whatsapp/:id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Modify a WhatsApp channel',
    operationId: 'updateWhatsappChannel',
    description:
      'A new `access_token`, `number_id`, `app_secret` or `business_account_id`, or several of them. A new token is how an inactive channel becomes `active` again. A new token or account syncs the template catalog again after the answer; another account replaces the catalog, and `business_account_id: null` unbinds it.',
  })
  @ApiOkResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiWhatsappChannelId()
  @ApiProblemResponses(413, 415, NUMBER_IN_USE)
  async updateWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateWhatsappChannelDto,
  ) {
    if (
      dto.access_token === undefined &&
      dto.number_id === undefined &&
      dto.app_secret === undefined &&
      dto.business_account_id === undefined
    ) {
      throw validationFailed(
        [],
        'Send access_token, number_id, app_secret, business_account_id, or several of them.',
      );
    }
    return this.respond(
      await this.templates.modifyChannel(principal, id, {
        senderId: dto.number_id,
        accessToken: dto.access_token,
        appSecret: dto.app_secret,
        businessAccountId: dto.business_account_id,
      }),
    );
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
    await this.channels.remove('whatsapp', principal, id);
  }
}
