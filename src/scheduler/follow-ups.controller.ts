import {
  CurrentIdempotentRequest,
  IDEMPOTENCY_PROBLEMS,
  Idempotent,
} from '../common/idempotency/idempotency.interceptor';
import type { IdempotentRequest } from '../common/idempotency/idempotency-keys';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import { BareResponse } from '../common/http/data-wrapper.interceptor';
import {
  ApiProblemResponses,
  ApiResourceId,
  DataEnvelope,
  ProblemExample,
} from '../common/http/openapi.decorators';
import {
  CreateFollowUpDto,
  FollowUpDto,
  FollowUpPageDto,
  ListFollowUpsQueryDto,
  SchedulePreviewDto,
  SchedulePreviewQueryDto,
} from './dto/follow-up.dto';
import { DeliveryPageDto, ListDeliveriesQueryDto, TEMPLATE_INVALID } from '../channels';
import { toDeliveryResponse } from './delivery/delivery.mapper';
import { toFollowUpResponse } from './follow-up.mapper';
import { FollowUpEntity } from './entities/follow-up.entity';
import { FollowUpsService } from './follow-ups.service';

/** The `:id` of a follow-up in a path. */
const ApiFollowUpId = () =>
  ApiResourceId(
    'follow-up',
    '`id` in the answer of POST /v1/scheduler/follow-up/whatsapp, or of an item of GET /v1/scheduler/follow-ups',
  );

const CHANNEL_NOT_USABLE: ProblemExample = {
  code: 'channel_not_usable',
  detail: 'No WhatsApp channel 0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b exists in this organization.',
};
const COMPLETED: ProblemExample = {
  code: 'conflict',
  detail: 'The follow-up has completed; nothing is left to run.',
};

@ApiTags('scheduler')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/scheduler')
export class FollowUpsController {
  constructor(private readonly followUps: FollowUpsService) {}

  @Post('follow-up/whatsapp')
  @Idempotent()
  @BareResponse()
  @ApiOperation({
    summary: 'Create a WhatsApp follow-up',
    description: 'Answered bare (no data wrapper), with next_run_at.',
    operationId: 'createWhatsappFollowUp',
  })
  @ApiCreatedResponse({ type: FollowUpDto })
  @ApiProblemResponses(413, 415, CHANNEL_NOT_USABLE, TEMPLATE_INVALID, ...IDEMPOTENCY_PROBLEMS)
  @ApiBody({
    type: CreateFollowUpDto,
    examples: {
      weekdays: {
        summary:
          'Replace channel_id with `data.id` of POST /v1/channels/whatsapp (a channel of the same agent_id)',
        value: {
          agent_id: 'agent_support_es',
          channel_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
          client_phone_numbers: ['+34612345678'],
          frequency: '0 9 * * 1-5',
          prompt: 'Remind {{title}}: ask whether the client needs anything else.',
          title: 'Weekly check-in',
          time_zone: 'Europe/Madrid',
        },
      },
      weekly_template: {
        summary:
          'Weekly, with a template (image header, named variables, URL button) for clients outside the 24-hour window; replace channel_id as above',
        value: {
          agent_id: 'agent_support_es',
          channel_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
          client_phone_numbers: ['+34612345678'],
          frequency: 'weekly',
          prompt: 'Tell {{title}} about this week: {{description}}.',
          title: 'Ana',
          description: '20% off every plant',
          time_zone: 'Europe/Madrid',
          template: {
            name: 'spring_sale',
            language: 'en_US',
            named_parameters: { first_name: '{{title}}', offer: '{{description}}' },
            header: { type: 'image', link: 'https://shop.example.com/spring.jpg' },
            buttons: [{ index: 0, sub_type: 'url', parameter: 'spring?to={{phone}}' }],
          },
        },
      },
    },
  })
  async createWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateFollowUpDto,
    @CurrentIdempotentRequest() idempotency?: IdempotentRequest,
  ): Promise<FollowUpDto> {
    return toFollowUpResponse(
      await this.followUps.createFollowUp(principal, 'whatsapp', dto, idempotency),
    );
  }

  @Get('follow-up/whatsapp/:id')
  @BareResponse()
  @ApiOperation({
    summary: 'Get a WhatsApp follow-up',
    operationId: 'getWhatsappFollowUp',
    description:
      'One follow-up of the organization, bare (no `data` wrapper), with `status`, `next_run_at` and its `deliveries` by status.',
  })
  @ApiOkResponse({ type: FollowUpDto })
  @ApiFollowUpId()
  async findOne(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<FollowUpDto> {
    return this.read(principal, await this.followUps.findOne(principal.organizationId, id));
  }

  @Get('follow-ups')
  @ApiOperation({
    summary: 'List follow-ups',
    operationId: 'listFollowUps',
    description:
      "The organization's follow-ups, newest first, optionally for one agent or channel; each with its `deliveries` by status.",
  })
  @ApiOkResponse({ type: DataEnvelope(FollowUpPageDto) })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListFollowUpsQueryDto,
  ): Promise<FollowUpPageDto> {
    const page = await this.followUps.list(principal.organizationId, query);
    return {
      ...page,
      items: await this.followUps.responses(principal.organizationId, page.items),
    };
  }

  @Post('follow-up/whatsapp/:id/pause')
  @HttpCode(200)
  @BareResponse()
  @ApiOperation({
    summary: 'Pause a follow-up',
    operationId: 'pauseFollowUp',
    description:
      'Stops new occurrences and holds its pending deliveries (retries too) until it is resumed. A completed follow-up answers 409.',
  })
  @ApiOkResponse({ type: FollowUpDto })
  @ApiFollowUpId()
  @ApiProblemResponses(COMPLETED)
  async pause(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<FollowUpDto> {
    return this.read(principal, await this.followUps.pause(principal.organizationId, id));
  }

  @Post('follow-up/whatsapp/:id/resume')
  @HttpCode(200)
  @BareResponse()
  @ApiOperation({
    summary: 'Resume a paused follow-up',
    description:
      'If runs were missed while paused, one message goes out at once, then the schedule continues.',
    operationId: 'resumeFollowUp',
  })
  @ApiOkResponse({ type: FollowUpDto })
  @ApiFollowUpId()
  @ApiProblemResponses(COMPLETED)
  async resume(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<FollowUpDto> {
    return this.read(principal, await this.followUps.resume(principal.organizationId, id));
  }

  @Delete('follow-up/whatsapp/:id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a follow-up: it stops, and its pending deliveries are cancelled',
    description: 'Its pending deliveries are cancelled; messages already sent stay in its history.',
    operationId: 'deleteFollowUp',
  })
  @ApiNoContentResponse()
  @ApiFollowUpId()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.followUps.remove(principal.organizationId, id);
  }

  @Get('follow-up/whatsapp/:id/deliveries')
  @ApiOperation({
    summary: "List a follow-up's deliveries",
    operationId: 'listDeliveries',
    description:
      'One row per client number and occurrence, newest occurrence first, with its status, attempts (the last 10 in `attempt_history`) and last error.',
  })
  @ApiOkResponse({ type: DataEnvelope(DeliveryPageDto) })
  @ApiFollowUpId()
  async deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<DeliveryPageDto> {
    const { items, attempts, offset, total_count } = await this.followUps.deliveries(
      principal.organizationId,
      id,
      query,
    );
    return {
      items: items.map((delivery) => toDeliveryResponse(delivery, attempts.get(delivery.id))),
      offset,
      total_count,
    };
  }

  @Get('preview')
  @ApiOperation({
    summary: 'Preview when a frequency fires',
    description:
      'The next `count` instants (ms) after `from`, exactly as a follow-up created at `from` would fire.',
    operationId: 'previewSchedule',
  })
  @ApiOkResponse({ type: DataEnvelope(SchedulePreviewDto) })
  async preview(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SchedulePreviewQueryDto,
  ): Promise<SchedulePreviewDto> {
    return { occurrences: await this.followUps.preview(principal.organizationId, query) };
  }

  private async read(principal: Principal, followUp: FollowUpEntity): Promise<FollowUpDto> {
    const [response] = await this.followUps.responses(principal.organizationId, [followUp]);
    return response;
  }
}
