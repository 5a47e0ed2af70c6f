import { applyDecorators, Type } from '@nestjs/common';
import {
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
  ApiExtraModels,
} from '@nestjs/swagger';
import {
  FieldError,
  notFoundDetail,
  problem,
  PROBLEM_CONTENT_TYPE,
  ProblemDetails,
} from './problem';
import { PROBLEM_CODE_NAMES, ProblemCode } from './problem-codes';

export class FieldErrorDto {
  @ApiProperty({ example: 'client_phone_numbers[1]' }) field!: string;
  @ApiProperty({ example: '"12" is not an E.164 phone number (e.g. +14155550123)' })
  message!: string;
}

/** RFC 9457 problem details as agentline renders them. */
export class ProblemDetailsDto {
  @ApiProperty({ example: 'https://agentline.dev/problems/validation-failed' }) type!: string;
  @ApiProperty({ example: 'Bad Request' }) title!: string;
  @ApiProperty({ example: 400 }) status!: number;
  @ApiProperty({ example: 'The request is not valid.' }) detail!: string;
  @ApiProperty({
    example: 'validation_failed',
    enum: PROBLEM_CODE_NAMES,
    description: 'Stable machine-readable code; each code always comes with the same status.',
  })
  code!: ProblemCode;
  @ApiPropertyOptional({
    type: [FieldErrorDto],
    description: 'The failing fields: the first 50 at most.',
  })
  errors?: FieldErrorDto[];
  @ApiPropertyOptional({
    type: 'integer',
    description: 'How many fields failed in all; present with `errors`.',
    example: 1,
  })
  errors_total?: number;
  @ApiPropertyOptional({
    description:
      'The id of the request (its `X-Request-Id` answer header): quote it to an operator, who finds every log line of the request under it.',
    example: '0f9a2c4e-5b1d-4c3e-9a7f-2d8e6b1c0a94',
  })
  request_id?: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'The body, query or path failed validation (wrong type, missing or unknown field, null, a NUL character, a number out of range, malformed JSON or JSON nested over 64 deep).',
  401: 'The bearer token is missing, malformed, expired, wrongly signed or lacks a required claim.',
  403: 'Refused.',
  404: "No such resource in the caller's organization.",
  409: 'The request conflicts with the state of a resource.',
  413: 'The body exceeds 1 MiB.',
  415: 'The body is not JSON.',
  422: 'The request is well-formed but references something unusable.',
};

/**
 * A status's description when every problem an operation names for it has one of its own (the
 * usual 413 is a body over 1 MiB, a media download's is a file over MEDIA_MAX_BYTES).
 */
const DESCRIPTIONS_BY_CODE: Partial<Record<ProblemCode, string>> = {
  media_too_large: 'The media is larger than `MEDIA_MAX_BYTES`.',
  bad_gateway: "Meta's answer cannot be used (or its media URL is not on Meta's host).",
  upstream_unavailable: "Meta's Graph API cannot be reached, or answered 429 or 5xx; retry later.",
  upstream_timeout: "Meta's Graph API did not answer within `GRAPH_API_TIMEOUT_MS`.",
};

const describe = (status: number, bodies: ProblemDetails[]): string | undefined =>
  bodies.every((body) => DESCRIPTIONS_BY_CODE[body.code])
    ? bodies.map((body) => DESCRIPTIONS_BY_CODE[body.code]).join(' ')
    : DESCRIPTIONS[status];

const REQUEST_ID = '0f9a2c4e-5b1d-4c3e-9a7f-2d8e6b1c0a94';

/** A problem as the service writes it, with the example request id. */
const exampleProblem = (code: ProblemCode, detail: string, errors?: FieldError[]) => ({
  ...problem(code, detail, errors),
  request_id: REQUEST_ID,
});

/** Each status's default example body, for operations that name no problem of their own. */
export const PROBLEM_EXAMPLES: Record<number, ProblemDetails> = {
  400: exampleProblem('validation_failed', 'The request is not valid.', [
    { field: 'agent_id', message: 'agent_id should not be empty' },
  ]),
  401: exampleProblem('unauthorized', 'The token has expired.'),
  413: exampleProblem('payload_too_large', 'The body exceeds 1 MiB.'),
  415: exampleProblem('unsupported_media_type', 'Send the body as application/json.'),
  429: exampleProblem(
    'rate_limited',
    'Too many requests: at most 1200 per minute for an organization. Retry in 12 s.',
  ),
  500: exampleProblem('internal_error', 'An unexpected error occurred; it has been logged.'),
  503: exampleProblem('database_unavailable', 'The database is unavailable; retry later.'),
};

/** A problem an operation answers, worded as the service words it; its status follows the code. */
export interface ProblemExample {
  code: ProblemCode;
  detail: string;
}

/** problem+json with its example bodies (named by code when there are several). */
export const problemContent = (status: number, bodies = [PROBLEM_EXAMPLES[status]]) => ({
  [PROBLEM_CONTENT_TYPE]: {
    schema: { $ref: getSchemaPath(ProblemDetailsDto) },
    ...(bodies.length === 1
      ? bodies[0] && { example: bodies[0] }
      : {
          // Named by code; a code that comes twice (two different 403s) gets a number.
          examples: Object.fromEntries(
            bodies.map((body, index) => [
              bodies.findIndex((other) => other.code === body.code) === index
                ? body.code
                : `${body.code}_${index + 1}`,
              { summary: body.code, value: body },
            ]),
          ),
        }),
  },
});

/**
 * Documents the problem+json responses an operation gives: a status with its default example, or
 * the operation's own problems (several for one status become named examples). Name every
 * problem of a status in one call: @nestjs/swagger would join a second call's description to the
 * first and keep only the second's examples.
 */
export function ApiProblemResponses(...responses: (number | ProblemExample)[]) {
  const byStatus = new Map<number, ProblemDetails[]>();
  for (const response of responses) {
    if (typeof response === 'number' && !PROBLEM_EXAMPLES[response]) {
      // 403, 404, 409, 422: what they mean depends on the operation, so it names its own.
      throw new Error(`ApiProblemResponses: name the ${response} problems of the operation`);
    }
    const body =
      typeof response === 'number'
        ? PROBLEM_EXAMPLES[response]
        : exampleProblem(response.code, response.detail);
    const status = typeof response === 'number' ? response : body.status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), body]);
  }
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...[...byStatus].map(([status, bodies]) =>
      ApiResponse({
        status,
        description: describe(status, bodies),
        content: problemContent(status, bodies),
      }),
    ),
  );
}

const envelopes = new Map<Type<unknown>, Type<unknown>>();

/** The `{ data: T }` wrapper of tools and channels, as a named schema for OpenAPI. */
export function DataEnvelope<T>(type: Type<T>): Type<{ data: T }> {
  const existing = envelopes.get(type);
  if (existing) return existing as Type<{ data: T }>;
  class Envelope {
    @ApiProperty({ type }) data!: T;
  }
  Object.defineProperty(Envelope, 'name', { value: `${type.name.replace(/Dto$/, '')}Envelope` });
  envelopes.set(type, Envelope);
  return Envelope;
}

const pages = new Map<Type<unknown>, Type<unknown>>();

/** `{ data: { items: T[], offset, total_count } }`, the envelope of every list. */
export function PageEnvelope<T>(type: Type<T>): Type<{ data: { items: T[] } }> {
  let page = pages.get(type) as Type<{ items: T[] }> | undefined;
  if (!page) {
    class Page {
      @ApiProperty({ type: [type] }) items!: T[];
      @ApiProperty({ type: 'integer' }) offset!: number;
      @ApiProperty({ type: 'integer' }) total_count!: number;
    }
    Object.defineProperty(Page, 'name', { value: `${type.name.replace(/Dto$/, '')}PageDto` });
    pages.set(type, Page);
    page = Page;
  }
  return DataEnvelope(page);
}

/**
 * A resource's id in the path: where a client finds it (Swagger UI shows it beside the empty
 * field), and the operation's 404 when it is not in the caller's organization.
 */
export const ApiResourceId = (what: string, whereFrom: string, name = 'id') =>
  applyDecorators(
    ApiParam({ name, description: `The ${what}'s id: ${whereFrom}.` }),
    ApiProblemResponses({ code: 'not_found', detail: notFoundDetail(what) }),
  );

/** `organization_id` of a resource: the organization claim of the token that created it. */
export const OrganizationIdProperty = () =>
  ApiProperty({
    example: 'org_acme',
    description:
      'The organization of the token that created it (the claim JWT_ORGANIZATION_CLAIM names, `organization_id` by default).',
  });

/** `created_by` of a resource: the subject of the token that created it. */
export const CreatedByProperty = () =>
  ApiProperty({
    example: 'user_alice',
    description: 'The `sub` claim of the token that created it.',
  });
