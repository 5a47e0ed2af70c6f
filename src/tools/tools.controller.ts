import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import { ApiProblemResponses, DataEnvelope } from '../common/http/openapi.decorators';
import {
  CreateToolDto,
  ListToolSpecsQueryDto,
  ListToolsQueryDto,
  ToolDto,
  ToolPageDto,
} from './dto/tool.dto';
import { ToolSpecificationPageDto } from './dto/tool-specification.dto';
import { toToolResponse } from './tool.mapper';
import { ToolsService } from './tools.service';

@ApiTags('tools')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/tools')
export class ToolsController {
  constructor(private readonly tools: ToolsService) {}

  @Post()
  @ApiOperation({
    summary: 'Attach a tool to an agent',
    description:
      'A tool that needs OAuth2 answers `pending` with an `oauth2_url` to send the user to (valid 10 minutes), `completed` when the agent already holds a grant that covers its scopes, or `not_started` when its provider is not configured.',
    operationId: 'createTool',
  })
  @ApiCreatedResponse({ type: DataEnvelope(ToolDto) })
  @ApiProblemResponses(413, 415, 422)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateToolDto,
  ): Promise<ToolDto> {
    return toToolResponse(await this.tools.createTool(principal, dto));
  }

  @Get('specs')
  @ApiOperation({ summary: 'List tool specifications', operationId: 'listToolSpecifications' })
  @ApiOkResponse({ type: DataEnvelope(ToolSpecificationPageDto) })
  async listSpecifications(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListToolSpecsQueryDto,
  ): Promise<ToolSpecificationPageDto> {
    return this.tools.listSpecifications(principal, query);
  }

  @Get()
  @ApiOperation({
    summary: 'List tools',
    description: "The organization's tools, newest first.",
    operationId: 'listTools',
  })
  @ApiOkResponse({ type: DataEnvelope(ToolPageDto) })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListToolsQueryDto,
  ): Promise<ToolPageDto> {
    const page = await this.tools.list(principal.organizationId, query);
    return { ...page, items: page.items.map(toToolResponse) };
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a tool',
    description: 'Poll this to see an OAuth2 authorization complete or fail.',
    operationId: 'getTool',
  })
  @ApiOkResponse({ type: DataEnvelope(ToolDto) })
  @ApiProblemResponses(404)
  async findOne(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<ToolDto> {
    return toToolResponse(await this.tools.findOne(principal.organizationId, id));
  }

  @Post(':id/authorize')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start the OAuth2 authorization of a tool again',
    description:
      'A fresh `oauth2_url` (the tool becomes `pending`), or `completed` at once when the agent already holds a grant that covers the tool. 409 `oauth2_not_required` for a tool without OAuth2; 422 `provider_not_configured` when its provider has no client credentials.',
    operationId: 'authorizeTool',
  })
  @ApiOkResponse({ type: DataEnvelope(ToolDto) })
  @ApiProblemResponses(404, 409, 422)
  async authorize(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<ToolDto> {
    return toToolResponse(await this.tools.authorize(principal.organizationId, id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Detach a tool',
    description: "Its authorizations in flight are dropped; the agent's OAuth2 grant stays.",
    operationId: 'deleteTool',
  })
  @ApiNoContentResponse()
  @ApiProblemResponses(404)
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.tools.remove(principal.organizationId, id);
  }
}
