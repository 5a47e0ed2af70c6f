import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import { BareResponse } from '../common/http/data-wrapper.interceptor';
import { ApiProblemResponses, DataEnvelope } from '../common/http/openapi.decorators';
import {
  CreateFollowUpDto,
  FollowUpDto,
  SchedulePreviewDto,
  SchedulePreviewQueryDto,
} from './dto/follow-up.dto';
import { toFollowUpResponse } from './follow-up.mapper';
import { FollowUpsService } from './follow-ups.service';

@ApiTags('scheduler')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/scheduler')
export class FollowUpsController {
  constructor(private readonly followUps: FollowUpsService) {}

  @Post('follow-up/whatsapp')
  @BareResponse()
  @ApiOperation({
    summary: 'Create a WhatsApp follow-up',
    description: 'Answered bare (no data wrapper), with next_run_at.',
    operationId: 'createWhatsappFollowUp',
  })
  @ApiCreatedResponse({ type: FollowUpDto })
  @ApiProblemResponses(413, 415, 422)
  async createWhatsapp(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateFollowUpDto,
  ): Promise<FollowUpDto> {
    return toFollowUpResponse(await this.followUps.createWhatsappFollowUp(principal, dto));
  }

  @Get('preview')
  @ApiOperation({
    summary: 'Preview when a frequency fires',
    description:
      'The next `count` instants (ms) after `from`, exactly as a follow-up created at `from` would fire.',
    operationId: 'previewSchedule',
  })
  @ApiOkResponse({ type: DataEnvelope(SchedulePreviewDto) })
  preview(@Query() query: SchedulePreviewQueryDto): SchedulePreviewDto {
    return { occurrences: this.followUps.preview(query) };
  }
}
