import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import { ApiProblemResponses, DataEnvelope } from '../common/http/openapi.decorators';
import { CreateToolDto, ListToolSpecsQueryDto, ToolDto } from './dto/tool.dto';
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
  @ApiOperation({ summary: 'Attach a tool to an agent', operationId: 'createTool' })
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
}
