import type { Response } from 'express';
import { ProblemCode, statusOf } from './problem-codes';

export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem details, with agentline's stable `code` and per-field `errors`. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  errors?: FieldError[];
  /** How many field errors there were; `errors` lists at most MAX_FIELD_ERRORS of them. */
  errors_total?: number;
  /** The request's id (its X-Request-Id): what to quote to an operator, who finds it in the log. */
  request_id?: string;
}

/** Writes problem details, with the id of the request they answer as `request_id`. */
export function sendProblem(
  response: Response,
  body: ProblemDetails,
  headers: Record<string, string> = {},
): void {
  const requestId = response.getHeader('X-Request-Id');
  const answered = typeof requestId === 'string' ? { ...body, request_id: requestId } : body;
  response
    .status(body.status)
    .set(headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(answered));
}

/** A body can fail in tens of thousands of places; the answer names the first ones and counts all. */
export const MAX_FIELD_ERRORS = 50;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const TYPE_BASE = 'https://agentline.dev/problems/';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export interface ProblemOptions {
  errors?: FieldError[];
  /** Headers of the answer, such as `Retry-After` or `WWW-Authenticate`. */
  headers?: Record<string, string>;
}

/**
 * The one exception every module throws for a client-visible failure; the filter renders it. The
 * status is the code's (problem-codes.ts), so a code always answers with the same status.
 */
export class ProblemException extends Error {
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    { errors, headers = {} }: ProblemOptions = {},
  ) {
    super(detail);
    this.status = statusOf(code);
    this.errors = errors;
    this.headers = headers;
  }

  toProblem(): ProblemDetails {
    return problem(this.code, this.detail, this.errors);
  }
}

export function problem(code: ProblemCode, detail: string, errors?: FieldError[]): ProblemDetails {
  const status = statusOf(code);
  return {
    type: `${TYPE_BASE}${code.replace(/_/g, '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors && errors.length > 0
      ? { errors: errors.slice(0, MAX_FIELD_ERRORS), errors_total: errors.length }
      : {}),
  };
}

export const validationFailed = (errors: FieldError[], detail = 'The request is not valid.') =>
  new ProblemException('validation_failed', detail, { errors });

/** The 404's detail for one kind of resource ("Tool was not found."); OpenAPI shows the same. */
export const notFoundDetail = (what: string) =>
  `${what.charAt(0).toUpperCase()}${what.slice(1)} was not found.`;

export const notFound = (what: string) => new ProblemException('not_found', notFoundDetail(what));
