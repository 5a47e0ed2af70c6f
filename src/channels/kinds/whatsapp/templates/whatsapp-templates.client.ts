import type { Agent } from 'undici';
import { describeOutboundError, isRecord, keepAliveAgent } from '../../../../common/outbound-http';
import { encodePath, UnsafePathSegmentError } from '../../../../common/url-path';
import {
  isTokenRejection,
  parseGraphError,
  redactSecret,
  truncate,
} from '../../meta/graph-api.client';
import type { CatalogTemplate } from './whatsapp-template-catalog';
import { GraphApiBase, GraphApiUrl } from '../../meta/graph-api-base';
import type { TemplateParameterFormat } from './whatsapp-template.entity';

/** One template in one language as Graph lists it (`GET /{waba_id}/message_templates`). */
export interface ListedTemplate extends CatalogTemplate {
  /** Meta's id of the template. */
  templateId: string | null;
}

/** Why a listing failed: the catalog stays as it was. `tokenRejected`: Meta refused the token. */
export interface TemplateListingFailure {
  failure: string;
  tokenRejected?: { code: string; message: string };
}

export const isListingFailure = (
  value: ListedTemplate[] | TemplateListingFailure,
): value is TemplateListingFailure => !Array.isArray(value);

/** The fields the catalog keeps (Graph returns only `id` and a few others unless asked). */
export const TEMPLATE_FIELDS = 'name,language,status,category,parameter_format,components,id';
/** Graph's largest page for this edge; a WhatsApp Business Account holds at most a few thousand. */
export const TEMPLATE_PAGE_SIZE = 100;
/**
 * A bound on a listing (10,000 templates): beyond it the answer is not Meta's (a cursor that never
 * ends), and a partial catalog would drop templates that exist, so the sync fails instead.
 */
export const MAX_TEMPLATE_PAGES = 100;
/** A page of 100 templates with their components is a few hundred KiB. */
const MAX_PAGE_BYTES = 8 * 1024 * 1024;

const PARAMETER_FORMATS: ReadonlySet<string> = new Set(['POSITIONAL', 'NAMED']);
const MAX_TEXT = 512;

const shortText = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT ? value : null;

/** One element of `data`, or undefined when it is not a template (no name, language or status). */
function readTemplate(value: unknown): ListedTemplate | undefined {
  if (!isRecord(value)) return undefined;
  const name = shortText(value.name);
  const language = shortText(value.language);
  const status = shortText(value.status);
  if (name === null || language === null || status === null) return undefined;
  const format = typeof value.parameter_format === 'string' ? value.parameter_format : '';
  const id = value.id;
  return {
    templateId: typeof id === 'string' || typeof id === 'number' ? String(id) : null,
    name,
    language,
    status,
    category: shortText(value.category),
    parameterFormat: PARAMETER_FORMATS.has(format)
      ? (format as TemplateParameterFormat)
      : 'POSITIONAL',
    components: Array.isArray(value.components) ? value.components : [],
  };
}

/**
 * Lists a WhatsApp Business Account's templates with a channel's token: Graph
 * `GET /{waba_id}/message_templates?fields=…&limit=100`, page after page by Meta's cursor paging
 * (`paging.cursors.after` while `paging.next` is present; developers.facebook.com/docs/graph-api/
 * results), at most MAX_TEMPLATE_PAGES. Never throws; never logs or returns the token.
 */
export class WhatsappTemplatesClient {
  private readonly agent: Agent;
  private readonly base: GraphApiBase;

  constructor(
    graphApiUrl: GraphApiUrl,
    private readonly timeoutMs: number,
  ) {
    this.base = new GraphApiBase(graphApiUrl);
    this.agent = keepAliveAgent({ connections: 16, timeoutMs, maxResponseBytes: MAX_PAGE_BYTES });
  }

  async list(
    businessAccountId: string,
    accessToken: string,
  ): Promise<ListedTemplate[] | TemplateListingFailure> {
    let path: string;
    try {
      path = `${this.base.path}${encodePath(businessAccountId, 'message_templates')}`;
    } catch (error) {
      if (!(error instanceof UnsafePathSegmentError)) throw error;
      return { failure: error.message };
    }
    const templates: ListedTemplate[] = [];
    let after: string | undefined;
    for (let page = 1; page <= MAX_TEMPLATE_PAGES; page++) {
      const query = new URLSearchParams({
        fields: TEMPLATE_FIELDS,
        limit: String(TEMPLATE_PAGE_SIZE),
      });
      if (after !== undefined) query.set('after', after);
      const answer = await this.page(`${path}?${query.toString()}`, accessToken);
      if ('failure' in answer) return answer;
      templates.push(...answer.templates);
      if (answer.after === undefined) return templates;
      after = answer.after;
    }
    return { failure: `Graph API listed more than ${MAX_TEMPLATE_PAGES} pages of templates` };
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async page(
    path: string,
    accessToken: string,
  ): Promise<{ templates: ListedTemplate[]; after?: string } | TemplateListingFailure> {
    const redact = (text: string) => truncate(redactSecret(text, accessToken));
    let statusCode: number;
    let text: string;
    try {
      const response = await this.agent.request({
        origin: this.base.origin,
        path,
        method: 'GET',
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      statusCode = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      const { code, message, timedOut } = describeOutboundError(error);
      return {
        failure: timedOut
          ? `Graph API did not answer within ${this.timeoutMs} ms`
          : redact(`Graph API request failed: ${code ? `${code}: ` : ''}${message}`),
      };
    }
    if (statusCode < 200 || statusCode >= 300) {
      const graph = parseGraphError(text);
      const code = graph?.code !== undefined ? String(graph.code) : `http_${statusCode}`;
      const message = redact(graph?.message ?? `Graph API answered HTTP ${statusCode}`);
      return {
        failure: `Graph API answered HTTP ${statusCode} (${code}): ${message}`,
        ...(isTokenRejection(statusCode, graph?.code) && { tokenRejected: { code, message } }),
      };
    }
    return readPage(text);
  }
}

/** `{ data: [...], paging: { cursors: { after }, next } }`; a failure when it is not that. */
function readPage(
  text: string,
): { templates: ListedTemplate[]; after?: string } | TemplateListingFailure {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { failure: 'Graph API answered something that is not JSON' };
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.data)) {
    return { failure: 'Graph API answered without a data list of templates' };
  }
  const templates: ListedTemplate[] = [];
  for (const [index, item] of parsed.data.entries()) {
    const template = readTemplate(item);
    if (!template) {
      return { failure: `Graph API listed data[${index}] without a name, language and status` };
    }
    templates.push(template);
  }
  const paging = isRecord(parsed.paging) ? parsed.paging : undefined;
  const cursors = isRecord(paging?.cursors) ? paging.cursors : undefined;
  const after = typeof cursors?.after === 'string' && cursors.after ? cursors.after : undefined;
  // Meta's last page has no `next` (its cursors may still be there).
  if (typeof paging?.next !== 'string') return { templates };
  if (after === undefined) return { failure: 'Graph API gave a next page without an after cursor' };
  return { templates, after };
}
