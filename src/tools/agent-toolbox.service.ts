import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Principal } from '../common/auth/principal';
import { ProblemException } from '../common/http/problem';
import { JsonValue } from '../common/json';
import {
  FORMATTED_NAME_PATTERN,
  formattedToolName,
  toMcpStructuredContent,
  toMcpTool,
} from './catalog/formatted-schema';
import { ToolCatalog } from './catalog/tool-catalog';
import { McpTool, ToolSpecificationDefinition } from './catalog/tool-specification.types';
import { AuthorizationStatus, ToolEntity } from './entities/tool.entity';
import {
  ExecutionOrigin,
  ToolExecutionService,
  ToolOutput,
} from './execution/tool-execution.service';
import { preferredAttachment, ToolsService } from './tools.service';

/** agentline's own toolkit (catalog/toolkits/agentline.json): every agent has it. */
export const AGENTLINE_TOOLKIT = 'Agentline';

export type AgentToolCall =
  | {
      kind: 'ran';
      executionId: string;
      output: ToolOutput;
      /** A value as MCP's `structuredContent`, matching the tool's `outputSchema`. */
      structuredContent?: Record<string, JsonValue>;
    }
  /** The agent's attachment cannot run until its user authorizes it (at `oauth2Url`, if any). */
  | {
      kind: 'authorization_required';
      detail: string;
      authorizationStatus: AuthorizationStatus;
      oauth2Url: string;
    };

/**
 * One agent's tools as an MCP server shows them (src/mcp-server): the agent's attachments whose
 * authorization is completed, plus the Agentline toolkit, each named and described exactly as
 * `GET /v1/tools/specs?format=mcp` does; and a call by that name, run by ToolExecutionService as
 * `POST /v1/tools/{id}/execute` runs it.
 *
 * A name is the catalog tool's (`Toolkit_Tool`), not the attachment's id: that is what the model
 * was shown elsewhere. An agent with several attachments of one tool is served by the one the
 * agent's specs page reports (completed first, then newest: `preferredAttachment`).
 */
@Injectable()
export class AgentToolbox {
  /** Each catalog tool by its formatted name, for the catalog generation it was built from. */
  private byName?: { generation: number; specs: Map<string, ToolSpecificationDefinition> };

  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    private readonly catalog: ToolCatalog,
    private readonly attachments: ToolsService,
    private readonly executions: ToolExecutionService,
  ) {}

  /** The agent's tools, sorted by name (the order MCP pages walk). */
  async list(organizationId: string, agentId: string): Promise<McpTool[]> {
    const rows = await this.tools.find({
      where: { organizationId, agentId, authorizationStatus: 'completed' },
    });
    const specs = new Map<string, ToolSpecificationDefinition>();
    for (const spec of [
      ...rows.map((row) => this.catalog.find(row.qualifiedName)),
      ...this.agentlineToolkit(),
    ]) {
      if (spec) specs.set(spec.qualifiedName, spec);
    }
    return [...specs.values()]
      .map((spec) => toMcpTool(spec))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Runs the agent's tool named `name` (as `list` names it). An Agentline tool the agent has not
   * attached is attached first, by the caller: executions are recorded under an attachment.
   * Throws `unknown_tool` for a name the agent does not have, and whatever execution throws.
   */
  async call(
    principal: Principal,
    agentId: string,
    name: string,
    input: Record<string, JsonValue>,
    origin: ExecutionOrigin,
  ): Promise<AgentToolCall> {
    const spec = this.findByName(name);
    if (!spec) throw unknownTool(name);
    const attachment = await this.attachment(principal, agentId, spec);
    if (attachment.authorizationStatus !== 'completed') {
      return {
        kind: 'authorization_required',
        detail: authorizationDetail(attachment, spec),
        authorizationStatus: attachment.authorizationStatus,
        oauth2Url: attachment.oauth2Url,
      };
    }
    try {
      const { execution, output } = await this.executions.execute(
        principal,
        attachment.id,
        { input },
        origin,
      );
      return {
        kind: 'ran',
        executionId: execution.id,
        output,
        ...('value' in output && {
          structuredContent: toMcpStructuredContent(spec, output.value) as Record<
            string,
            JsonValue
          >,
        }),
      };
    } catch (error) {
      // A completed tool whose grant has no live token left: the user authorizes again.
      if (error instanceof ProblemException && error.code === 'authorization_required') {
        return {
          kind: 'authorization_required',
          detail: error.detail,
          authorizationStatus: attachment.authorizationStatus,
          oauth2Url: attachment.oauth2Url,
        };
      }
      throw error;
    }
  }

  /**
   * `Toolkit_Tool` back to its spec, by a map from each catalog tool's formatted name, built once
   * per catalog generation. A name no formatted name could be (over 64 characters, say) is none.
   */
  private findByName(name: string): ToolSpecificationDefinition | undefined {
    if (!FORMATTED_NAME_PATTERN.test(name)) return undefined;
    const generation = this.catalog.generation;
    if (this.byName?.generation !== generation) {
      const specs = new Map<string, ToolSpecificationDefinition>();
      for (const spec of this.catalog.list({ offset: 0, limit: this.catalog.size }).items) {
        const formatted = formattedToolName(spec.qualifiedName);
        const held = specs.get(formatted);
        // `A_B.C` and `A.B_C` format alike: the shorter toolkit name serves, as it always did.
        if (!held || spec.toolkit.name.length < held.toolkit.name.length)
          specs.set(formatted, spec);
      }
      this.byName = { generation, specs };
    }
    return this.byName.specs.get(name);
  }

  private agentlineToolkit(): readonly ToolSpecificationDefinition[] {
    return this.catalog.list({ toolkit: AGENTLINE_TOOLKIT, offset: 0, limit: this.catalog.size })
      .items;
  }

  private async attachment(
    principal: Principal,
    agentId: string,
    spec: ToolSpecificationDefinition,
  ): Promise<ToolEntity> {
    const rows = await this.tools.find({
      where: {
        organizationId: principal.organizationId,
        agentId,
        qualifiedName: spec.qualifiedName,
      },
    });
    const preferred = rows.reduce<ToolEntity | undefined>(preferredAttachment, undefined);
    if (preferred) return preferred;
    if (spec.toolkit.name !== AGENTLINE_TOOLKIT)
      throw unknownTool(formattedToolName(spec.qualifiedName));
    // Two first calls at once may attach it twice; either attachment then serves, as for any tool.
    // Not published: tools/list shows the toolkit attached or not.
    return this.attachments.createTool(
      principal,
      { agent_id: agentId, name: spec.qualifiedName },
      { publish: false },
    );
  }
}

const unknownTool = (name: string) =>
  new ProblemException(
    'unknown_tool',
    `This agent has no tool named "${name}"; tools/list lists them.`,
  );

function authorizationDetail(tool: ToolEntity, spec: ToolSpecificationDefinition): string {
  const provider = spec.requirements.authorization?.provider_id;
  const status = tool.authorizationStatus.replace('_', ' ');
  if (!provider) {
    return `${spec.qualifiedName} cannot run: it needs the secret ${spec.requirements.secrets.map((s) => s.key).join(', ')}, which was not given; attach the tool again with api_key.`;
  }
  return tool.oauth2Url
    ? `${spec.qualifiedName} cannot run: its authorization with provider '${provider}' is ${status}. Ask the user to open ${tool.oauth2Url} and authorize, then call it again.`
    : `${spec.qualifiedName} cannot run: its authorization with provider '${provider}' is ${status}; authorize it again with POST /v1/tools/${tool.id}/authorize.`;
}
