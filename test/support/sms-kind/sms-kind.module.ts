import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Module,
  OnModuleInit,
  Param,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { Request } from 'express';
import { DataSource } from 'typeorm';
import { webhookUrl } from '../../../src/channels/channel.mappers';
import { ChannelsModule } from '../../../src/channels/channels.module';
import { ChannelsService } from '../../../src/channels/channels.service';
import { ListChannelMessagesQueryDto } from '../../../src/channels/conversations/conversation.dto';
import { ConversationsService } from '../../../src/channels/conversations/conversations.service';
import { ChannelKinds } from '../../../src/channels/kinds/channel-kinds';
import type { StoredChannel } from '../../../src/channels/kinds/channel-kind';
import { ChannelMessagesService } from '../../../src/channels/messages/channel-messages.service';
import { ListDeliveriesQueryDto } from '../../../src/channels/messages/delivery.dto';
import { WebhookChannels } from '../../../src/channels/webhooks/webhook-channels';
import { WebhookInbox } from '../../../src/channels/webhooks/webhook-inbox';
import { CurrentPrincipal, Principal, Public } from '../../../src/common/auth/principal';
import { sameSecret } from '../../../src/common/crypto/same-secret';
import { ProblemException } from '../../../src/common/http/problem';
import { CreateFollowUpDto } from '../../../src/scheduler/dto/follow-up.dto';
import { toFollowUpResponse } from '../../../src/scheduler/follow-up.mapper';
import { FollowUpsService } from '../../../src/scheduler/follow-ups.service';
import { SchedulerModule } from '../../../src/scheduler/scheduler.module';
import { SMS_CHANNELS_TABLE, SMS_KIND } from './sms.kind';

class CreateSmsChannelDto {
  @IsString() @IsNotEmpty() @MaxLength(64) agent_id!: string;
  @IsString() @IsNotEmpty() @MaxLength(32) sender_number!: string;
  @IsString() @IsNotEmpty() @MaxLength(4096) access_token!: string;
}

class SendSmsDto {
  @IsString() @IsNotEmpty() @MaxLength(32) to!: string;
  @IsString() @IsNotEmpty() @MaxLength(160) text!: string;
}

/** The SMS kind's routes: each a line that hands its kind to the kind-generic services. */
@Controller()
class SmsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly messages: ChannelMessagesService,
    private readonly conversations: ConversationsService,
    private readonly followUps: FollowUpsService,
    private readonly webhookChannels: WebhookChannels,
    private readonly inbox: WebhookInbox,
  ) {}

  private respond = (channel: StoredChannel) =>
    SMS_KIND.toResponse(channel, webhookUrl('http://localhost:3000', channel));

  @Post('v1/channels/sms')
  async create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateSmsChannelDto) {
    return this.respond(
      await this.channels.create('sms', principal, {
        agentId: dto.agent_id,
        senderId: dto.sender_number,
        accessToken: dto.access_token,
      }),
    );
  }

  @Post('v1/channels/sms/:id/messages')
  @HttpCode(202)
  send(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() dto: SendSmsDto) {
    return this.messages.send(principal, 'sms', id, dto.to, () => ({ text: dto.text }));
  }

  @Get('v1/channels/sms/:id/deliveries')
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ) {
    return this.messages.deliveries(principal, 'sms', id, query);
  }

  @Get('v1/channels/sms/:id/messages')
  async inbound(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListChannelMessagesQueryDto,
  ) {
    const page = await this.conversations.listMessages(principal, 'sms', id, query);
    return { ...page, items: page.items.map((m) => ({ sender: m.sender, text: m.text })) };
  }

  @Post('v1/scheduler/follow-up/sms')
  async followUp(@CurrentPrincipal() principal: Principal, @Body() dto: CreateFollowUpDto) {
    return toFollowUpResponse(await this.followUps.createFollowUp(principal, 'sms', dto));
  }

  /** The provider signs nothing here: it sends the channel's verification token as a header. */
  @Public()
  @Post('v1/webhooks/sms/:id')
  @HttpCode(200)
  async webhook(
    @Param('id') id: string,
    @Headers('x-sms-token') token: string | undefined,
    @Req() request: Request,
  ): Promise<void> {
    const channel = await this.webhookChannels.find('sms', id);
    if (!channel || !token || !sameSecret(token, channel.verificationToken)) {
      throw new ProblemException('forbidden', 'No such SMS channel, or a wrong x-sms-token.');
    }
    await this.inbox.store(channel, request.body as Buffer);
  }
}

/** Registers the kind before the application starts, and creates its table (its migration). */
@Module({ imports: [ChannelsModule, SchedulerModule], controllers: [SmsController] })
export class SmsKindModule implements OnModuleInit {
  constructor(
    kinds: ChannelKinds,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    kinds.register(SMS_KIND);
  }

  async onModuleInit(): Promise<void> {
    for (const statement of SMS_CHANNELS_TABLE) await this.dataSource.query(statement);
  }
}
