import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { performance } from 'node:perf_hooks';
import { Repository } from 'typeorm';
import { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { isForeignKeyViolation } from '../../common/database-errors';
import { SecretBox } from '../../common/crypto/secret-box';
import { JsonValue } from '../../common/json';
import {
  notFound,
  ProblemDetails,
  ProblemException,
  validationFailed,
} from '../../common/http/problem';
import { byteBoundedPage } from '../../common/http/byte-bounded-page';
import { isUuid, uuidv7 } from '../../common/ids';
import { ToolCatalog } from '../catalog/tool-catalog';
import { ToolOrigin, ToolSpecificationDefinition } from '../catalog/tool-specification.types';
import { AuthorizationStatus, ToolEntity } from '../entities/tool.entity';
import { apiKeyAad } from '../tools.service';
import { ExecuteToolDto, ListToolExecutionsQueryDto } from './dto/tool-execution.dto';
import { ToolExecutionEntity, ToolExecutionStatus } from './tool-execution.entity';
import { McpToolCalls, OAuth2AccessTokens } from './tool-execution.ports';
import { ToolExecutionContext, ToolExecutionError, ToolInput } from './tool-executor';
import { ToolExecutorRegistry } from './tool-executor.registry';
import { boundedJson } from './stored-json';
import { toolInputValidator, validateToolInput } from './tool-input.validator';
import { TOOLS_CONFIG, ToolsConfig } from '../tools.config';
import { WorkerPoolUnavailable } from '../../common/worker-pool/worker-pool';

const DEFAULT_PAGE_SIZE = 50;
const MAX_ERROR_CHARS = 4096;

export type ToolOutput = { value: JsonValue } | { error: string };

/** Where a run was asked for, besides who asked: the MCP request's JSON-RPC id, if any. */
export interface ExecutionOrigin {
  mcpRequestId?: string;
}

export interface ToolExecutionResult {
  execution: ToolExecutionEntity;
  output: ToolOutput;
}

interface Outcome {
  status: ToolExecutionStatus;
  output: ToolOutput;
}

/** 409 with the attachment's status as an extension member, so clients need not parse `detail`. */
class AuthorizationRequiredProblem extends ProblemException {
  constructor(
    detail: string,
    private readonly authorizationStatus: AuthorizationStatus,
  ) {
    super('authorization_required', detail);
  }

  override toProblem(): ProblemDetails & { authorization_status: AuthorizationStatus } {
    return { ...super.toProblem(), authorization_status: this.authorizationStatus };
  }
}

const notExecutable = (detail: string) => new ProblemException('not_executable', detail);

/** A worker thread the tool needs cannot start: nothing ran; `503` with `Retry-After`. */
const workerThreadsUnavailable = (error: WorkerPoolUnavailable) =>
  new ProblemException(
    'busy',
    'The worker threads that run this tool cannot start at the moment; they are being started again. Retry shortly.',
    { headers: { 'Retry-After': String(error.retryAfterSeconds) } },
  );

/** A run that may start: everything checked, credentials in hand. */
type Run = (context: ToolExecutionContext) => Promise<Outcome>;

/**
 * Runs a tool attachment: checks the input against the tool's specification and the attachment's
 * authorization, injects its credential, runs it in-process or on its MCP server under
 * TOOL_EXECUTION_TIMEOUT_MS, and records every run in `tool_executions` (never the credential).
 */
@Injectable()
export class ToolExecutionService implements OnModuleInit {
  private readonly logger = new Logger(ToolExecutionService.name);
  private readonly timeoutMs: number;

  constructor(
    @InjectRepository(ToolEntity) private readonly tools: Repository<ToolEntity>,
    @InjectRepository(ToolExecutionEntity)
    private readonly executions: Repository<ToolExecutionEntity>,
    private readonly catalog: ToolCatalog,
    private readonly registry: ToolExecutorRegistry,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    @Inject(TOOLS_CONFIG) config: ToolsConfig,
    @Optional() private readonly oauth2?: OAuth2AccessTokens,
    @Optional() private readonly mcp?: McpToolCalls,
  ) {
    this.timeoutMs = config.toolExecution.timeoutMs;
  }

  /** Compiles the built-in tools' input validators at boot, not on a request's event loop. */
  onModuleInit(): void {
    for (const spec of this.catalog.list({ offset: 0, limit: this.catalog.size }).items) {
      toolInputValidator(spec);
    }
  }

  async execute(
    principal: Principal,
    toolId: string,
    dto: ExecuteToolDto,
    origin: ExecutionOrigin = {},
  ): Promise<ToolExecutionResult> {
    const tool = await this.findTool(principal.organizationId, toolId);
    const spec = this.catalog.find(tool.qualifiedName);
    if (!spec) {
      throw new ProblemException(
        'unknown_tool',
        `${tool.qualifiedName} is no longer in the catalog; GET /v1/tools/specs lists the tools.`,
      );
    }
    const { input, errors } = validateToolInput(spec, dto.input);
    if (errors.length > 0) {
      throw validationFailed(
        errors,
        `The input does not match ${spec.qualifiedName}'s parameters.`,
      );
    }
    const run = this.runnerFor(spec, input);
    this.assertAuthorized(tool, spec);
    const credentials = await this.credentials(tool, spec);

    const controller = new AbortController();
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await this.withTimeout(
        run({
          organizationId: tool.organizationId,
          agentId: tool.agentId,
          toolId: tool.id,
          toolCreatedBy: tool.createdBy,
          executedBy: principal.subject,
          ...credentials,
          signal: controller.signal,
          timeoutMs: this.timeoutMs,
        }),
        controller,
      );
    } catch (error) {
      // No thread could take the tool: it never ran, so there is nothing to record.
      if (error instanceof WorkerPoolUnavailable) throw workerThreadsUnavailable(error);
      // A bug, not a tool failure: still on the record, then a 500 (logged by the problem filter).
      await this.record(principal, origin, tool, input, Math.round(performance.now() - started), {
        status: 'failed',
        output: { error: 'The tool failed unexpectedly.' },
      });
      throw error;
    }
    const secrets = Object.values(credentials).filter((value): value is string => !!value);
    const output = scrub(outcome.output, secrets) as ToolOutput;
    const execution = await this.record(
      principal,
      origin,
      tool,
      input,
      Math.round(performance.now() - started),
      { status: outcome.status, output },
    );
    return { execution, output };
  }

  async list(
    organizationId: string,
    toolId: string,
    query: ListToolExecutionsQueryDto,
  ): Promise<{ items: ToolExecutionEntity[]; offset: number; total_count: number }> {
    const tool = await this.findTool(organizationId, toolId);
    const offset = query.offset ?? 0;
    const { items, total } = await byteBoundedPage(
      this.executions,
      { organizationId, toolId: tool.id },
      (row) => `octet_length(${row}.input_json) + octet_length(${row}.output_json)`,
      { offset, limit: query.limit ?? DEFAULT_PAGE_SIZE },
    );
    return { items, offset, total_count: total };
  }

  private async findTool(organizationId: string, id: string): Promise<ToolEntity> {
    const tool = isUuid(id) ? await this.tools.findOneBy({ id, organizationId }) : null;
    if (!tool) throw notFound('Tool');
    return tool;
  }

  /** How the tool runs: its MCP server, or an in-process executor; neither is 422. */
  private runnerFor(spec: ToolSpecificationDefinition, input: ToolInput): Run {
    const origin: ToolOrigin = spec.origin ?? { kind: 'builtin' };
    if (origin.kind === 'mcp') {
      const mcp = this.mcp;
      if (!mcp) {
        throw notExecutable(
          `${spec.qualifiedName} comes from the MCP server "${origin.server}", and MCP toolkits are not available in this deployment.`,
        );
      }
      return () => this.callMcp(mcp, origin, input);
    }
    const executor = this.registry.find(spec.qualifiedName);
    if (!executor) {
      throw notExecutable(
        `${spec.qualifiedName} can be attached, but agentline cannot execute it yet: no executor is implemented for it.`,
      );
    }
    return async (context) => {
      try {
        return {
          status: 'succeeded',
          output: { value: toJson(await executor.execute(input, context)) },
        };
      } catch (error) {
        if (error instanceof ToolExecutionError) {
          return { status: 'failed', output: { error: error.message } };
        }
        throw error;
      }
    };
  }

  private async callMcp(
    mcp: McpToolCalls,
    origin: { server: string; tool: string },
    input: ToolInput,
  ): Promise<Outcome> {
    try {
      const result = await mcp.call(
        origin.server,
        origin.tool,
        { ...input },
        { timeoutMs: this.timeoutMs },
      );
      return 'error' in result
        ? { status: 'failed', output: { error: result.error } }
        : { status: 'succeeded', output: { value: toJson(result.value) } };
    } catch (error) {
      const code = mcpErrorCode(error);
      if (code === undefined) throw error;
      const message = error instanceof Error ? error.message : String(error);
      return code === 'mcp_timeout'
        ? {
            status: 'timed_out',
            output: { error: `Timed out after ${this.timeoutMs} ms: ${message}` },
          }
        : { status: 'failed', output: { error: message } };
    }
  }

  /** Secret tools need their api_key; OAuth2 tools need a completed authorization. */
  private assertAuthorized(tool: ToolEntity, spec: ToolSpecificationDefinition): void {
    const provider = spec.requirements.authorization?.provider_id;
    const missingSecret = spec.requirements.secrets.length > 0 && !tool.apiKeyEncrypted;
    if (tool.authorizationStatus === 'completed' && !missingSecret) return;
    const status = tool.authorizationStatus.replace('_', ' ');
    const reason = provider
      ? `its authorization with provider '${provider}' is ${status}; complete the OAuth2 flow first`
      : `it needs the secret ${spec.requirements.secrets.map((s) => s.key).join(', ')}, which was not given; attach the tool again with api_key`;
    throw new AuthorizationRequiredProblem(
      `Tool ${tool.id} (${spec.qualifiedName}) cannot run: ${reason}.`,
      tool.authorizationStatus,
    );
  }

  private async credentials(
    tool: ToolEntity,
    spec: ToolSpecificationDefinition,
  ): Promise<{ apiKey?: string; accessToken?: string }> {
    const apiKey = tool.apiKeyEncrypted
      ? this.secrets.decrypt(tool.apiKeyEncrypted, apiKeyAad(tool.id))
      : undefined;
    const provider = spec.requirements.authorization?.provider_id;
    if (!provider) return { apiKey };
    const accessToken = await this.oauth2?.accessToken(tool.organizationId, tool.agentId, provider);
    if (!accessToken) {
      throw new AuthorizationRequiredProblem(
        `Tool ${tool.id} (${spec.qualifiedName}) cannot run: agent ${tool.agentId} has no live access token for provider '${provider}'; authorize again.`,
        tool.authorizationStatus,
      );
    }
    return { apiKey, accessToken };
  }

  /** Our time-out wins over whatever the tool is doing: it is aborted and the run is timed_out. */
  private async withTimeout(work: Promise<Outcome>, controller: AbortController): Promise<Outcome> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({
          status: 'timed_out',
          output: { error: `Timed out after ${this.timeoutMs} ms` },
        });
      }, this.timeoutMs);
    });
    // A late failure of abandoned work must not surface as an unhandled rejection.
    work.catch(() => undefined);
    try {
      return await Promise.race([work, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async record(
    principal: Principal,
    origin: ExecutionOrigin,
    tool: ToolEntity,
    input: ToolInput,
    durationMs: number,
    outcome: Outcome,
  ): Promise<ToolExecutionEntity> {
    const now = this.clock.now();
    const storedInput = boundedJson(input);
    const storedOutput = boundedJson(outcome.output);
    const error = 'error' in outcome.output ? outcome.output.error : null;
    const execution = this.executions.create({
      id: uuidv7(now),
      organizationId: tool.organizationId,
      toolId: tool.id,
      agentId: tool.agentId,
      qualifiedName: tool.qualifiedName,
      inputJson: storedInput.json,
      outputJson: storedOutput.json,
      truncated: storedInput.truncated || storedOutput.truncated,
      status: outcome.status,
      // Raw text (not JSON-escaped): PostgreSQL cannot store NUL in it, and it is bounded too.
      error: error === null ? null : cutText(error.split('\u0000').join('\uFFFD')),
      durationMs,
      mcpRequestId: origin.mcpRequestId ?? null,
      createdBy: principal.subject,
      createdAt: new Date(now),
    });
    try {
      await this.executions.insert(execution);
    } catch (error) {
      // The tool was removed while it ran, and its executions with it: the run happened (it may
      // have sent an email), so its answer still stands; there is no tool left to file it under.
      if (!isForeignKeyViolation(error, 'tool_executions_tool_id_fkey')) throw error;
      this.logger.log({ toolId: tool.id }, 'tool removed while it ran; its execution is not kept');
    }
    return execution;
  }
}

function cutText(text: string): string {
  return text.length <= MAX_ERROR_CHARS ? text : `${text.slice(0, MAX_ERROR_CHARS)}…`;
}

/** What a tool returns goes out as JSON; undefined (no value) becomes null. */
function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** A credential echoed by a provider must not reach the response or the record. */
function scrub(value: JsonValue, secrets: readonly string[]): JsonValue {
  if (secrets.length === 0) return value;
  if (typeof value === 'string') {
    return secrets.reduce((text, secret) => text.split(secret).join('[redacted]'), value);
  }
  if (Array.isArray(value)) return value.map((item) => scrub(item, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, scrub(item, secrets)]),
    );
  }
  return value;
}

/** McpCallError's code, read structurally so that execution does not depend on the MCP client. */
function mcpErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('mcp_') ? code : undefined;
}
