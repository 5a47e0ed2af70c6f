import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Principal } from '../common/auth/principal';
import { Clock } from '../common/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { ProblemException } from '../common/http/problem';
import { uuidv7 } from '../common/ids';
import { ToolCatalog } from './catalog/tool-catalog';
import { toSpecificationResponse } from './catalog/tool-specification.mapper';
import {
  RequirementState,
  ToolSpecificationDefinition,
  ToolSpecificationResponse,
} from './catalog/tool-specification.types';
import { CreateToolDto, ListToolSpecsQueryDto } from './dto/tool.dto';
import { AuthorizationStatus, ToolEntity } from './entities/tool.entity';

export const DEFAULT_SPECS_LIMIT = 50;

export const apiKeyAad = (toolId: string) => `tools:${toolId}:api_key`;

/**
 * The status a new attachment starts in. OAuth2 tools wait for the authorization flow; a tool
 * that needs a secret is ready once the secret is given; a tool that needs nothing is ready.
 */
function initialAuthorizationStatus(
  spec: ToolSpecificationDefinition,
  apiKey?: string,
): AuthorizationStatus {
  if (spec.requirements.authorization) return 'not_started';
  if (spec.requirements.secrets.length > 0) return apiKey ? 'completed' : 'not_started';
  return 'completed';
}

/** What an agent's attachment of a tool means for that tool's requirements. */
function requirementState(
  spec: ToolSpecificationDefinition,
  attachment?: ToolEntity,
): RequirementState {
  if (!attachment) return {};
  const provider = spec.requirements.authorization?.provider_id;
  return {
    authorization: provider
      ? {
          id: attachment.id,
          status: attachment.authorizationStatus,
          status_reason:
            attachment.authorizationStatus === 'completed'
              ? ''
              : `Authorization with provider '${provider}' is ${attachment.authorizationStatus.replace('_', ' ')}`,
          token_status: attachment.authorizationStatus === 'completed' ? 'active' : 'not_started',
        }
      : undefined,
    configuredSecrets: attachment.apiKeyEncrypted
      ? spec.requirements.secrets.map((secret) => secret.key)
      : [],
  };
}

/** Of several attachments of one tool, the one that tells best whether the agent can use it. */
function preferredAttachment(current: ToolEntity | undefined, candidate: ToolEntity): ToolEntity {
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
  ) {}

  async createTool(principal: Principal, dto: CreateToolDto): Promise<ToolEntity> {
    const spec = this.catalog.find(dto.name.trim());
    if (!spec) {
      throw new ProblemException(
        422,
        'unknown_tool',
        `No tool named "${dto.name}" is in the catalog; GET /v1/tools/specs lists them.`,
      );
    }
    const now = this.clock.now();
    const id = uuidv7(now);
    const tool = this.tools.create({
      id,
      organizationId: principal.organizationId,
      agentId: dto.agent_id,
      name: dto.name.trim(),
      qualifiedName: spec.qualifiedName,
      toolkitVersion: spec.toolkit.version,
      paramsJson: dto.params === undefined ? null : JSON.stringify(dto.params),
      apiKeyEncrypted: dto.api_key ? this.secrets.encrypt(dto.api_key, apiKeyAad(id)) : null,
      authorizationStatus: initialAuthorizationStatus(spec, dto.api_key),
      oauth2Url: '',
      createdBy: principal.subject,
      createdAt: new Date(now),
      updatedAt: new Date(now),
    });
    await this.tools.insert(tool);
    return tool;
  }

  async listSpecifications(
    principal: Principal,
    query: ListToolSpecsQueryDto,
  ): Promise<{ items: ToolSpecificationResponse[]; offset: number; total_count: number }> {
    const offset = query.offset ?? 0;
    const page = this.catalog.list({
      toolkit: query.toolkit,
      offset,
      limit: query.limit ?? DEFAULT_SPECS_LIMIT,
    });
    const attachments = query.agent_id
      ? await this.attachmentsByTool(principal.organizationId, query.agent_id, page.items)
      : new Map<string, ToolEntity>();
    return {
      items: page.items.map((spec) =>
        toSpecificationResponse(
          spec,
          requirementState(spec, attachments.get(spec.qualifiedName)),
          query.format,
        ),
      ),
      offset,
      total_count: page.total,
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
