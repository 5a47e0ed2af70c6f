import { IDEMPOTENCY_PROBLEMS, Idempotent } from '../common/idempotency/idempotency.interceptor';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  ApiBody,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../common/auth/principal';
import {
  ApiProblemResponses,
  DataEnvelope,
  ProblemExample,
} from '../common/http/openapi.decorators';
import { ApiToolId } from './tools.openapi';
import {
  CreateToolDto,
  ListToolSpecsQueryDto,
  ListToolsQueryDto,
  ToolDto,
  ToolPageDto,
} from './dto/tool.dto';
import { ToolSpecificationPageDto } from './dto/tool-specification.dto';
import { matchesIfNoneMatch } from './catalog/catalog-pages';
import { toToolResponse } from './tool.mapper';
import { ToolsService } from './tools.service';

const UNKNOWN_TOOL: ProblemExample = {
  code: 'unknown_tool',
  detail: 'No tool named "Weather.GetForecast" is in the catalog; GET /v1/tools/specs lists them.',
};
const OAUTH2_NOT_REQUIRED: ProblemExample = {
  code: 'oauth2_not_required',
  detail: 'The tool Math.Calculate needs no OAuth2 authorization.',
};
const PROVIDER_NOT_CONFIGURED: ProblemExample = {
  code: 'provider_not_configured',
  detail:
    "OAuth2 provider 'google' is not configured: set OAUTH_GOOGLE_CLIENT_ID and OAUTH_GOOGLE_CLIENT_SECRET.",
};

@ApiTags('tools')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/tools')
export class ToolsController {
  constructor(private readonly tools: ToolsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Attach a tool to an agent',
    description:
      'A tool that needs OAuth2 answers `pending` with an `oauth2_url` to send the user to (valid 10 minutes), `completed` when the agent already holds a grant that covers its scopes, or `not_started` when its provider is not configured.',
    operationId: 'createTool',
  })
  @ApiCreatedResponse({ type: DataEnvelope(ToolDto) })
  @ApiProblemResponses(413, 415, UNKNOWN_TOOL, ...IDEMPOTENCY_PROBLEMS)
  @ApiBody({
    type: CreateToolDto,
    examples: {
      'Math.Calculate': {
        summary: 'A tool that needs no authorization (POST /v1/tools/{id}/execute runs it at once)',
        value: { agent_id: 'agent_support_es', name: 'Math.Calculate' },
      },
      'Google.ListCalendarEvents': {
        summary:
          "A tool that needs OAuth2: send the user to the answer's oauth2_url (the service needs OAUTH_GOOGLE_CLIENT_ID and OAUTH_GOOGLE_CLIENT_SECRET)",
        value: { agent_id: 'agent_support_es', name: 'Google.ListCalendarEvents' },
      },
      'Weather.GetCurrentWeather': {
        summary: "A tool that needs an API key (OpenWeather's): put your own in api_key",
        value: {
          agent_id: 'agent_support_es',
          name: 'Weather.GetCurrentWeather',
          params: { units: 'metric' },
          api_key: 'a3f9c2e4b7d14e6f8a0b1c2d3e4f5a6b',
        },
      },
    },
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateToolDto,
  ): Promise<ToolDto> {
    return toToolResponse(await this.tools.createTool(principal, dto));
  }

  @Get('specs')
  @ApiOperation({
    summary: 'List tool specifications',
    operationId: 'listToolSpecifications',
    description:
      'Every answer carries a strong `ETag`; send it back in `If-None-Match` to get `304 Not Modified` while the page is unchanged. ' +
      'Without `agent_id` a page changes only when the catalog does (an MCP server’s tool list, for example).',
  })
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description:
      'The `ETag` of a page already held: answered `304` with no body while it is current.',
  })
  @ApiOkResponse({
    type: DataEnvelope(ToolSpecificationPageDto),
    headers: {
      ETag: { description: 'Strong entity tag of this page.', schema: { type: 'string' } },
      'Cache-Control': {
        description:
          '`private, no-cache`: keep it, but ask again (cheaply, with If-None-Match) before each use.',
        schema: { type: 'string' },
      },
    },
  })
  @ApiResponse({
    status: 304,
    description: 'The page named by If-None-Match is still current; no body.',
  })
  async listSpecifications(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListToolSpecsQueryDto,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const page = await this.tools.specificationPage(principal, query);
    // The bytes are sent as they are: serialized once for every caller of the same page.
    response.setHeader('ETag', page.etag);
    // Behind a token, so no shared cache; a client may keep it but asks again before each use.
    response.setHeader('Cache-Control', 'private, no-cache');
    if (matchesIfNoneMatch(request.headers['if-none-match'], page.etag)) {
      response.status(304).end();
      return;
    }
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', page.body.length);
    response.status(200).end(page.body);
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
  @ApiToolId()
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
  @ApiToolId()
  @ApiProblemResponses(OAUTH2_NOT_REQUIRED, PROVIDER_NOT_CONFIGURED)
  async authorize(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<ToolDto> {
    return toToolResponse(await this.tools.authorize(principal.organizationId, id));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove (detach) a tool from its agent',
    description: "Its authorizations in flight are dropped; the agent's OAuth2 grant stays.",
    operationId: 'deleteTool',
  })
  @ApiNoContentResponse()
  @ApiToolId()
  async remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.tools.remove(principal.organizationId, id);
  }
}
