import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import {
  DatabaseOutageReporter,
  databaseUnavailable,
  isDatabaseUnavailable,
} from '../database-errors';
import { ProblemCode } from './problem-codes';
import { problem, ProblemDetails, ProblemException, sendProblem } from './problem';

/**
 * Nest's own HttpExceptions (a route that does not exist, a framework pipe) by status. Any other
 * status would be a bug of ours: it answers 500 and is logged, like any unexpected error.
 */
const CODES_BY_STATUS: Partial<Record<number, ProblemCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/** Maps anything thrown to problem details; what it does not know becomes a generic 500. */
export function toProblem(error: unknown): {
  body: ProblemDetails;
  headers: Record<string, string>;
} {
  if (error instanceof ProblemException) {
    return { body: error.toProblem(), headers: error.headers };
  }
  const code = error instanceof HttpException ? CODES_BY_STATUS[error.getStatus()] : undefined;
  if (code) {
    const detail =
      code === 'not_found' ? 'No such route or resource.' : (error as HttpException).message;
    return { body: problem(code, detail), headers: {} };
  }
  if (isDatabaseUnavailable(error)) {
    const unavailable = databaseUnavailable();
    return { body: unavailable.toProblem(), headers: unavailable.headers };
  }
  return {
    body: problem('internal_error', 'An unexpected error occurred; it has been logged.'),
    headers: {},
  };
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemFilter.name);

  constructor(private readonly outages: DatabaseOutageReporter) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const { body, headers } = toProblem(error);
    if (body.code === 'database_unavailable') {
      // One line per outage (DatabaseAvailability), not a stack trace per request.
      this.outages.reportFailure(error);
    } else if (body.status >= 500 && !(error instanceof ProblemException)) {
      // The stack goes to the log (secrets are redacted there), never to the client.
      this.logger.error({ err: error }, 'unhandled error');
    }
    if (response.headersSent) return;
    sendProblem(response, body, headers);
  }
}
