import { graphRefusal, GraphAnswer } from './graph-errors';

/** A template as `GET /{waba_id}/message_templates` lists it (WhatsApp Business Management API). */
export interface GraphTemplate {
  id: string;
  name: string;
  language: string;
  status: string;
  category: string;
  parameter_format?: 'NAMED' | 'POSITIONAL';
  components: Record<string, unknown>[];
}

/** The fields Graph lists when `fields` is not given. */
const DEFAULT_FIELDS = ['id', 'name', 'status'];
/** What a template node has (anything else asked for is a Graph error, as for any field). */
const KNOWN_FIELDS = new Set([
  'id',
  'name',
  'language',
  'status',
  'category',
  'parameter_format',
  'components',
  'quality_score',
  'rejected_reason',
  'previous_category',
]);
const GRAPH_DEFAULT_LIMIT = 25;

const cursor = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
const offsetOf = (after: string): number | undefined => {
  const match = /^offset:(\d+)$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
};

/** What a listing asked: `fields`, `limit` and `after`, as the query gave them. */
export interface TemplateListingQuery {
  fields: string[];
  limit: number | undefined;
  after: string | undefined;
}

export function readTemplateListingQuery(query: URLSearchParams): TemplateListingQuery {
  const limit = query.get('limit');
  return {
    fields: query.get('fields')?.split(',') ?? DEFAULT_FIELDS,
    limit: limit === null ? undefined : Number(limit),
    after: query.get('after') ?? undefined,
  };
}

/**
 * One page of an account's templates as Graph lists it: only the fields asked for, `limit` per page
 * at most (and at most `maxPageSize`, as Graph may send fewer), with Graph's cursor paging:
 * `paging.cursors.{before,after}`, and `paging.next` (`nextUrl` of its query) on every page but the
 * last (developers.facebook.com/docs/graph-api/results).
 */
export function templateListingPage(
  templates: readonly GraphTemplate[],
  { fields, limit = GRAPH_DEFAULT_LIMIT, after }: TemplateListingQuery,
  { maxPageSize, nextUrl }: { maxPageSize: number; nextUrl: (query: URLSearchParams) => string },
): GraphAnswer {
  const unknownField = fields.find((field) => !KNOWN_FIELDS.has(field));
  if (unknownField) {
    return graphRefusal(
      400,
      100,
      `(#100) Tried accessing nonexisting field (${unknownField}) on node type (WhatsAppBusinessAccount)`,
    );
  }
  if (!Number.isInteger(limit) || limit < 1) {
    return graphRefusal(400, 100, '(#100) Param limit must be a positive integer');
  }
  const start = after === undefined ? 0 : offsetOf(after);
  if (start === undefined) return graphRefusal(400, 100, '(#100) Invalid after cursor');
  const page = templates.slice(start, start + Math.min(limit, maxPageSize));
  const end = start + page.length;
  const next = new URLSearchParams({
    fields: fields.join(','),
    limit: String(limit),
    after: cursor(end),
  });
  return {
    status: 200,
    body: {
      data: page.map((template) => pick(template, fields)),
      paging: {
        cursors: { before: cursor(start), after: cursor(end) },
        ...(end < templates.length && { next: nextUrl(next) }),
      },
    },
  };
}

function pick(template: GraphTemplate, fields: string[]): Record<string, unknown> {
  const node: Record<string, unknown> = { parameter_format: 'POSITIONAL', ...template };
  return Object.fromEntries(
    fields.filter((field) => field in node).map((field) => [field, node[field]]),
  );
}
