import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Principal } from '../common/auth/principal';
import { AgentToolChanges } from './agent-tool-changes';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { byteBoundedPage } from '../common/http/byte-bounded-page';
import { notFound, ProblemException } from '../common/http/problem';
import { isUuid, uuidv7 } from '../common/ids';
import { ToolCatalog } from './catalog/tool-catalog';
import { serializeSpecification } from './catalog/tool-specification.mapper';
import { CatalogPages, SerializedPage, serializedPage } from './catalog/catalog-pages';
import {
  RequirementState,
  ResolvedAuthorizationRequirement,
  ToolSpecificationDefinition,
} from './catalog/tool-specification.types';
import { CreateToolDto, ListToolSpecsQueryDto, ListToolsQueryDto } from './dto/tool.dto';
import { OAuth2GrantEntity } from './entities/oauth2-grant.entity';
import { OAuth2StateEntity } from './entities/oauth2-state.entity';
import { AuthorizationStatus, ToolEntity } from './entities/tool.entity';
import {
  AuthorizationStart,
  OAuth2AuthorizationService,
} from './oauth2/oauth2-authorization.service';
import { OAuth2GrantsService } from './oauth2/oauth2-grants.service';
import { OAuth2ProviderRegistry } from './oauth2/oauth2-provider.registry';
import { toOAuth2RequirementState } from './oauth2/oauth2-requirement.mapper';

export const DEFAULT_SPECS_LIMIT = 50;
const PAGE_START = Buffer.from('{"data":{"items":[');
const COMMA = Buffer.from(',');

export const apiKeyAad = (toolId: string) => `tools:${toolId}:api_key`;

/** What a tool that needs no OAuth2 starts as: ready once its secrets (if any) are given. */
function initialAuthorizationStatus(
  spec: ToolSpecificationDefinition,
  apiKey?: string,
): AuthorizationStatus {
  if (spec.requirements.secrets.length > 0) return apiKey ? 'completed' : 'not_started';
  return 'completed';
}

/** The tool row's columns for an OAuth2 authorization that stands as `start` says. */
function authorizationColumns(
  start: AuthorizationStart,
): Pick<ToolEntity, 'authorizationStatus' | 'oauth2Url' | 'authorizationStatusReason'> {
  return {
    authorizationStatus: start.status,
    oauth2Url: start.status === 'pending' ? start.oauth2Url : '',
    authorizationStatusReason: null,
  };
}

/** Of several attachments of one tool, the one that tells best whether the agent can use it. */
export function preferredAttachment(
  current: ToolEntity | undefined,
  candidate: ToolEntity,
): ToolEntity {
  if (!current) return candidate;
  const rank = (tool: ToolEntity) => (tool.authorizationStatus === 'completed' ? 1 : 0);
  if (rank(candidate) !== rank(current))
    return rank(candidate) > rank(current) ? candidate : current;
  return candidate.createdAt > current.createdAt ? candidate : current;
}

@Injectable()
export class ToolsService {
  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    private readonly catalog: ToolCatalog,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly authorization: OAuth2AuthorizationService,
    private readonly grants: OAuth2GrantsService,
    private readonly providers: OAuth2ProviderRegistry,
    private readonly catalogPages: CatalogPages,
    private readonly changes: AgentToolChanges,
  ) {}

  /**
   * `publish: false` when the agent's tools read the same after it (an Agentline tool attached on
   * its first call through MCP: tools/list shows the toolkit either way), so no stream is told.
   */
  async createTool(
    principal: Principal,
    dto: CreateToolDto,
    { publish = true }: { publish?: boolean } = {},
  ): Promise<ToolEntity> {
    const spec = this.catalog.find(dto.name.trim());
    if (!spec) {
      throw new ProblemException(
        'unknown_tool',
        `No tool named "${dto.name}" is in the catalog; GET /v1/tools/specs lists them.`,
      );
    }
    const now = this.clock.now();
    const id = uuidv7(now);
    const oauth2 = spec.requirements.authorization;
    const start = oauth2
      ? await this.authorization.start(
          { id, organizationId: principal.organizationId, agentId: dto.agent_id },
          oauth2,
        )
      : undefined;
    const tool = this.tools.create({
      id,
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      name: dto.name.trim(),
      qualifiedName: spec.qualifiedName,
      toolkitVersion: spec.toolkit.version,
      paramsJson: dto.params === undefined ? null : JSON.stringify(dto.params),
      apiKeyEncrypted: dto.api_key ? this.secrets.encrypt(dto.api_key, apiKeyAad(id)) : null,
      ...(start
        ? authorizationColumns(start)
        : {
            authorizationStatus: initialAuthorizationStatus(spec, dto.api_key),
            oauth2Url: '',
            authorizationStatusReason: null,
          }),
      createdBy: principal.subject,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
    await this.tools.manager.transaction(async (db) => {
      await db.insert(ToolEntity, tool);
      if (start?.status === 'pending') await db.insert(OAuth2StateEntity, start.state);
    });
    if (publish) await this.changes.publish(tool.organizationId, tool.agentId);
    return tool;
  }

  async findOne(organizationId: string, id: string): Promise<ToolEntity> {
    const tool = isUuid(id) ? await this.tools.findOneBy({ id, organizationId }) : null;
    if (!tool) throw notFound('Tool');
    return tool;
  }

  async list(
    organizationId: string,
    query: ListToolsQueryDto,
  ): Promise<{ items: ToolEntity[]; offset: number; total_count: number }> {
    const offset = query.offset ?? 0;
    // `params` may be up to 1 MiB each: a page is bounded in bytes too.
    const { items, total } = await byteBoundedPage(
      this.tools,
      { organizationId, ...(query.agent_id !== undefined && { agentId: query.agent_id }) },
      (row) => `coalesce(octet_length(${row}.params_json), 0)`,
      { offset, limit: query.limit ?? DEFAULT_SPECS_LIMIT },
    );
    return { items, offset, total_count: total };
  }

  /**
   * A fresh oauth2_url for an OAuth2 tool (the previous one may have expired or failed), or
   * `completed` at once when the agent's grant already covers the tool.
   */
  async authorize(organizationId: string, id: string): Promise<ToolEntity> {
    const tool = await this.findOne(organizationId, id);
    const requirement = this.oauth2Requirement(tool);
    if (!requirement) {
      throw new ProblemException(
        'oauth2_not_required',
        `The tool ${tool.qualifiedName} needs no OAuth2 authorization.`,
      );
    }
    const start = await this.authorization.start(tool, requirement);
    if (start.status === 'not_started') {
      throw new ProblemException('provider_not_configured', `${start.reason}.`);
    }
    Object.assign(tool, authorizationColumns(start), { updatedAt: new Date(this.clock.now()) });
    await this.tools.manager.transaction(async (db) => {
      await db.update(
        ToolEntity,
        { id: tool.id, organizationId },
        {
          authorizationStatus: tool.authorizationStatus,
          oauth2Url: tool.oauth2Url,
          authorizationStatusReason: tool.authorizationStatusReason,
          updatedAt: tool.updatedAt,
        },
      );
      if (start.status === 'pending') await db.insert(OAuth2StateEntity, start.state);
    });
    // A completed tool may be pending again (a grant that no longer covers it), or completed now.
    await this.changes.publish(organizationId, tool.agentId);
    return tool;
  }

  /** Its authorizations in flight go with it; the agent's grant stays for its other tools. */
  async remove(organizationId: string, id: string): Promise<void> {
    const tool = await this.findOne(organizationId, id);
    await this.tools.delete({ id: tool.id, organizationId });
    await this.changes.publish(organizationId, tool.agentId);
  }

  /**
   * A page of the catalog as the bytes answered (`{data: page}`) with its ETag. Without an agent,
   * the page is the same for everyone until the catalog changes: it is built once
   * (CatalogPages); with one, the agent's attachments make it per call.
   */
  async specificationPage(
    principal: Principal,
    query: ListToolSpecsQueryDto,
  ): Promise<SerializedPage> {
    const build = async () => serializedPage(await this.specificationPageBytes(principal, query));
    if (query.agent_id !== undefined) return build();
    const key = [
      query.format ?? 'openai',
      // `?toolkit=` (no toolkit matches '') is not the unfiltered page.
      query.toolkit === undefined ? '*' : `=${query.toolkit.toLowerCase()}`,
      query.offset ?? 0,
      query.limit ?? DEFAULT_SPECS_LIMIT,
    ].join('\u0000');
    return this.catalogPages.get(key, build);
  }

  /**
   * `{"data":{"items":[...],"offset":...,"total_count":...}}` as JSON.stringify would write it,
   * in UTF-8, from each item's pieces (serializeSpecification makes its fixed ones once).
   */
  private async specificationPageBytes(
    principal: Principal,
    query: ListToolSpecsQueryDto,
  ): Promise<Buffer> {
    const offset = query.offset ?? 0;
    const page = this.catalog.list({
      toolkit: query.toolkit,
      offset,
      limit: query.limit ?? DEFAULT_SPECS_LIMIT,
    });
    const [attachments, grants] = query.agent_id
      ? await Promise.all([
          this.attachmentsByTool(principal.organizationId, query.agent_id, page.items),
          this.grants.findByAgent(principal.organizationId, query.agent_id),
        ])
      : [new Map<string, ToolEntity>(), []];
    const now = this.clock.now();
    const parts: Buffer[] = [PAGE_START];
    page.items.forEach((spec, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(
        ...serializeSpecification(
          spec,
          this.requirementState(spec, attachments.get(spec.qualifiedName), grants, now),
          query.format,
        ),
      );
    });
    parts.push(
      Buffer.from(
        `],"offset":${JSON.stringify(offset)},"total_count":${JSON.stringify(page.total)}}}`,
      ),
    );
    return Buffer.concat(parts);
  }

  private oauth2Requirement(tool: ToolEntity): ResolvedAuthorizationRequirement | undefined {
    return this.catalog.find(tool.qualifiedName)?.requirements.authorization;
  }

  /** What an agent's attachment of a tool (and its grant) means for that tool's requirements. */
  private requirementState(
    spec: ToolSpecificationDefinition,
    attachment: ToolEntity | undefined,
    grants: readonly OAuth2GrantEntity[],
    now: number,
  ): RequirementState {
    const providerId = spec.requirements.authorization?.provider_id;
    return {
      authorization: providerId
        ? toOAuth2RequirementState({
            providerId,
            provider: this.providers.find(providerId),
            attachment,
            grant: grants.find((grant) => grant.providerId === providerId),
            now,
          })
        : undefined,
      configuredSecrets: attachment?.apiKeyEncrypted
        ? spec.requirements.secrets.map((secret) => secret.key)
        : [],
    };
  }

  private async attachmentsByTool(
    organizationId: string,
    agentId: string,
    specs: readonly ToolSpecificationDefinition[],
  ): Promise<Map<string, ToolEntity>> {
    const byTool = new Map<string, ToolEntity>();
    if (specs.length === 0) return byTool;
    const rows = await this.tools.find({
      where: {
        organizationId,
        agentId,
        qualifiedName: In(specs.map((spec) => spec.qualifiedName)),
      },
    });
    for (const row of rows)
      byTool.set(row.qualifiedName, preferredAttachment(byTool.get(row.qualifiedName), row));
    return byTool;
  }
}
