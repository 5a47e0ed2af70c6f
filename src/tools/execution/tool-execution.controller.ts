import { IDEMPOTENCY_PROBLEMS, Idempotent } from '../../common/idempotency/idempotency.interceptor';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../common/auth/principal';
import {
  ApiProblemResponses,
  DataEnvelope,
  ProblemExample,
} from '../../common/http/openapi.decorators';
import { ApiToolId } from '../tools.openapi';
import {
  ExecuteToolDto,
  ListToolExecutionsQueryDto,
  ToolExecutionPageDto,
  ToolExecutionResultDto,
} from './dto/tool-execution.dto';
import { toToolExecutionResponse, toToolExecutionResultResponse } from './tool-execution.mapper';
import { ToolExecutionService } from './tool-execution.service';

const AUTHORIZATION_REQUIRED: ProblemExample = {
  code: 'authorization_required',
  detail:
    "Tool 0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b (Google.ListCalendarEvents) cannot run: its authorization with provider 'google' is pending; complete the OAuth2 flow first.",
};
const NOT_EXECUTABLE: ProblemExample = {
  code: 'not_executable',
  detail:
    'Docs.Search comes from the MCP server "docs", and MCP toolkits are not available in this deployment.',
};

@ApiTags('tools')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
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
  @ApiToolId()
  @ApiProblemResponses(413, 415, AUTHORIZATION_REQUIRED, NOT_EXECUTABLE, ...IDEMPOTENCY_PROBLEMS)
  @ApiBody({
    type: ExecuteToolDto,
    examples: {
      'Math.Calculate': {
        summary: "Math.Calculate's input (attach it with the first example of POST /v1/tools)",
        value: { input: { expression: '(1200 * 0.075) / 12' } },
      },
    },
  })
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
  @ApiToolId()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListToolExecutionsQueryDto,
  ): Promise<ToolExecutionPageDto> {
    const page = await this.executions.list(principal.organizationId, id, query);
    return { ...page, items: page.items.map(toToolExecutionResponse) };
  }
}
