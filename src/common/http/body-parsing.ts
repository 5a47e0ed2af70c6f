import type { NextFunction, Request, RequestHandler, Response } from 'express';
import express from 'express';
import {
  MAX_JSON_DEPTH,
  UNACCEPTABLE_DETAILS,
  UNACCEPTABLE_MESSAGES,
  verifyJsonBody,
} from './input-guards';
import { problem, ProblemDetails, sendProblem } from './problem';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const send = (response: Response, body: ProblemDetails): void => sendProblem(response, body);

const hasBody = (request: Request): boolean =>
  request.headers['transfer-encoding'] !== undefined ||
  Number(request.headers['content-length'] ?? 0) > 0;

const JSON_TYPES = ['application/json', 'application/*+json'];

const STREAMED = Symbol('agentline.streamed-body');
type MaybeStreamed = Request & { [STREAMED]?: true };
const isStreamed = (request: Request): boolean => (request as MaybeStreamed)[STREAMED] === true;

/**
 * The routes (method and whole path) that read their own body as a stream, whatever its type (a
 * media upload's multipart form): the JSON rules and the 1 MiB limit below skip them.
 */
export function streamedBodies(
  routes: readonly { method: string; path: RegExp }[],
): RequestHandler {
  return (request, _response, next) => {
    if (routes.some((route) => route.method === request.method && route.path.test(request.path))) {
      (request as MaybeStreamed)[STREAMED] = true;
    }
    next();
  };
}

/** A body that is sent must be JSON: `415` otherwise, before anything reads it. */
export const requireJsonBody: RequestHandler = (request, response, next) => {
  // A webhook's body was read raw already (it is judged by its signature, not its type); a
  // streamed route reads its own.
  if (Buffer.isBuffer(request.body) || isStreamed(request)) return next();
  if (hasBody(request) && !request.is(JSON_TYPES)) {
    send(
      response,
      problem(
        'unsupported_media_type',
        'Request bodies must be JSON (Content-Type: application/json).',
      ),
    );
    return;
  }
  next();
};

export const parseJsonBody = express.json({
  limit: BODY_LIMIT_BYTES,
  strict: false,
  type: (request) =>
    !isStreamed(request as Request) && Boolean((request as Request).is(JSON_TYPES)),
  // Runs on the raw body before JSON.parse: too deep a nesting, or a charset it cannot scan.
  verify: verifyJsonBody,
});

interface BodyParserError {
  type?: string;
  status?: number;
  /** Where an object of too many keys is (verifyJsonBody). */
  field?: string;
}

/** Renders body-parser's failures (malformed JSON, too large, bad charset) as problem details. */
export function bodyParserErrors(
  error: unknown,
  _request: Request,
  response: Response,
  // Express recognises error handlers by their four parameters.
  _next: NextFunction,
): void {
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return send(response, problem('malformed_json', 'The request body is not valid JSON.'));
    case 'entity.too.deep':
      return send(
        response,
        problem(
          'json_too_deep',
          `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`,
        ),
      );
    case 'entity.too.wide':
      return send(
        response,
        problem('validation_failed', UNACCEPTABLE_DETAILS.too_many_keys, [
          { field: parserError.field ?? 'body', message: UNACCEPTABLE_MESSAGES.too_many_keys },
        ]),
      );
    case 'entity.too.large':
      return send(
        response,
        problem('payload_too_large', `The request body exceeds ${BODY_LIMIT_BYTES} bytes.`),
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return send(
        response,
        problem('unsupported_media_type', 'The request body must be UTF-8 JSON.'),
      );
    default:
      // Aborted or unreadable bodies, and anything else: never Express's handler, which prints a
      // stack trace outside production.
      return send(response, problem('bad_request', 'The request body could not be read.'));
  }
}

/**
 * Webhook notifications are signed over their exact bytes: kept raw (a Buffer in `request.body`),
 * whatever they hold, under the same size limit; the JSON parser then skips them.
 */
export const WEBHOOK_PATH = '/v1/webhooks';
export const parseRawWebhookBody = express.raw({ limit: BODY_LIMIT_BYTES, type: () => true });
