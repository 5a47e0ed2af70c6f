import { HttpStatus } from '@nestjs/common';

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
  code: string;
  errors?: FieldError[];
  /** How many field errors there were; `errors` lists at most MAX_FIELD_ERRORS of them. */
  errors_total?: number;
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
  503: 'Service Unavailable',
};

/** The one exception every module throws for a client-visible failure; the filter renders it. */
export class ProblemException extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toProblem(): ProblemDetails {
    return problem(this.status, this.code, this.detail, this.errors);
  }
}

export function problem(
  status: number,
  code: string,
  detail: string,
  errors?: FieldError[],
): ProblemDetails {
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
  new ProblemException(HttpStatus.BAD_REQUEST, 'validation_failed', detail, errors);

export const notFound = (what: string) =>
  new ProblemException(HttpStatus.NOT_FOUND, 'not_found', `${what} was not found.`);
