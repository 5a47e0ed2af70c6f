import { Idempotent } from '../../common/idempotency/idempotency.interceptor';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../common/auth/principal';
import { ApiProblemResponses, DataEnvelope } from '../../common/http/openapi.decorators';
import {
  ExecuteToolDto,
  ListToolExecutionsQueryDto,
  ToolExecutionPageDto,
  ToolExecutionResultDto,
} from './dto/tool-execution.dto';
import { toToolExecutionResponse, toToolExecutionResultResponse } from './tool-execution.mapper';
import { ToolExecutionService } from './tool-execution.service';

@ApiTags('tools')
@ApiBearerAuth()
@ApiProblemResponses(400, 401, 404)
@Controller('v1/tools')
export class ToolExecutionController {
  constructor(private readonly executions: ToolExecutionService) {}

  @Post(':id/execute')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Execute a tool attachment',
    description:
      "Validates `input` against the tool's parameters, injects the attachment's credential and runs the tool under a time-out. A tool that fails or times out still answers 200, with `output.error`; every run is recorded.",
    operationId: 'executeTool',
  })
  @ApiOkResponse({ type: DataEnvelope(ToolExecutionResultDto) })
  @ApiProblemResponses(409, 413, 415, 422)
  async execute(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() dto: ExecuteToolDto,
  ): Promise<ToolExecutionResultDto> {
    return toToolExecutionResultResponse(await this.executions.execute(principal, id, dto));
  }

  @Get(':id/executions')
  @ApiOperation({
    summary: "List a tool attachment's executions",
    description: 'Newest first.',
    operationId: 'listToolExecutions',
  })
  @ApiOkResponse({ type: DataEnvelope(ToolExecutionPageDto) })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListToolExecutionsQueryDto,
  ): Promise<ToolExecutionPageDto> {
    const page = await this.executions.list(principal.organizationId, id, query);
    return { ...page, items: page.items.map(toToolExecutionResponse) };
  }
}
