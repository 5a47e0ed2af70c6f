import { applyDecorators, Type } from '@nestjs/common';
import {
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
  ApiExtraModels,
} from '@nestjs/swagger';
import { problem, PROBLEM_CONTENT_TYPE, ProblemDetails } from './problem';
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
  404: "No such resource in the caller's organization.",
  409: 'The request conflicts with an existing resource.',
  413: 'The body exceeds 1 MiB.',
  415: 'The body is not JSON.',
  422: 'The request is well-formed but references something unusable.',
};

const REQUEST_ID = '0f9a2c4e-5b1d-4c3e-9a7f-2d8e6b1c0a94';

/** Each status's own example body, as the service writes it (problem() and the codes registry). */
export const PROBLEM_EXAMPLES: Record<number, ProblemDetails> = {
  400: problem('validation_failed', 'The request is not valid.', [
    { field: 'agent_id', message: 'agent_id should not be empty' },
  ]),
  401: problem('unauthorized', 'The token has expired.'),
  404: problem('not_found', 'WhatsApp channel was not found.'),
  409: problem(
    'conflict',
    'A WhatsApp channel for number_id 106540352242922 already exists in this organization.',
  ),
  413: problem('payload_too_large', 'The body exceeds 1 MiB.'),
  415: problem('unsupported_media_type', 'Send the body as application/json.'),
  422: problem(
    'unknown_tool',
    'No tool named "Weather.GetForecast" is in the catalog; GET /v1/tools/specs lists them.',
  ),
  429: problem(
    'rate_limited',
    'Too many requests: at most 1200 per minute for an organization. Retry in 12 s.',
  ),
  500: problem('internal_error', 'An unexpected error occurred; it has been logged.'),
};
for (const example of Object.values(PROBLEM_EXAMPLES)) example.request_id = REQUEST_ID;

/** problem+json with the status's example, for the responses documented here and in app.setup. */
export const problemContent = (status: number) => ({
  [PROBLEM_CONTENT_TYPE]: {
    schema: { $ref: getSchemaPath(ProblemDetailsDto) },
    ...(PROBLEM_EXAMPLES[status] && { example: PROBLEM_EXAMPLES[status] }),
  },
});

/** Documents the problem+json responses an operation can give, each with its own example. */
export function ApiProblemResponses(...statuses: number[]) {
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...statuses.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status], content: problemContent(status) }),
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
