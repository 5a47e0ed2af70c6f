import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal, Principal } from '../../../../common/auth/principal';
import {
  ApiProblemResponses,
  DataEnvelope,
  PageEnvelope,
} from '../../../../common/http/openapi.decorators';
import { ProblemException } from '../../../../common/http/problem';
import { AppConfig } from '../../../../config/app-config';
import { APP_CONFIG } from '../../../../config/config.module';
import { webhookUrl } from '../../../channel.mappers';
import { ApiWhatsappChannelId } from '../../../channels.openapi';
import { ChannelsService } from '../../../channels.service';
import { WhatsappChannelDto } from '../whatsapp-channel.dto';
import { toWhatsappChannelResponse } from '../whatsapp.kind';
import { ListWhatsappTemplatesQueryDto, WhatsappTemplateDto } from './whatsapp-template.dto';
import { WhatsappTemplateCatalog } from './whatsapp-template-catalog';
import { WhatsappTemplateSync } from './whatsapp-template-sync';

const NO_BUSINESS_ACCOUNT =
  'This channel has no business_account_id: set one (PUT /v1/channels/whatsapp/{id}) to keep its template catalog.';

/** A WhatsApp channel's template catalog: listed, and synced on demand. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(400, 401)
@Controller('v1/channels/whatsapp')
export class WhatsappTemplatesController {
  constructor(
    private readonly catalog: WhatsappTemplateCatalog,
    private readonly sync: WhatsappTemplateSync,
    private readonly channels: ChannelsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get(':id/templates')
  @ApiWhatsappChannelId()
  @ApiOperation({
    summary: "A WhatsApp channel's template catalog",
    operationId: 'listWhatsappTemplates',
    description:
      "The templates of the channel's WhatsApp Business Account, one item per template and language, as Graph last listed them (synced on create and modify, every TEMPLATE_SYNC_MS, on demand and on Meta's template webhooks), ordered by name then language; filtered by exact `name`, `language` and `status`. Empty until the first sync (the channel's `templates.synced_at`).",
  })
  @ApiOkResponse({ type: PageEnvelope(WhatsappTemplateDto) })
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ListWhatsappTemplatesQueryDto,
  ) {
    return this.catalog.list(principal.organizationId, id, query);
  }

  @Post(':id/templates/sync')
  @HttpCode(202)
  @ApiWhatsappChannelId()
  @ApiOperation({
    summary: "Sync a WhatsApp channel's template catalog now",
    operationId: 'syncWhatsappTemplates',
    description:
      "Asks for a sync of the catalog from Graph (every page, with the channel's token) and answers at once with the channel; its `templates.synced_at` moves once the sync is done, or `templates.sync_error` says why it failed (the catalog is then kept as it was). A sync already running is followed by this one.",
  })
  @ApiAcceptedResponse({ type: DataEnvelope(WhatsappChannelDto) })
  @ApiProblemResponses({ code: 'conflict', detail: NO_BUSINESS_ACCOUNT })
  async requestSync(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const channel = await this.channels.get('whatsapp', principal, id);
    if (!(await this.sync.request(principal.organizationId, id))) {
      throw new ProblemException('conflict', NO_BUSINESS_ACCOUNT);
    }
    return toWhatsappChannelResponse(channel, webhookUrl(this.config.publicUrl, channel));
  }
}
