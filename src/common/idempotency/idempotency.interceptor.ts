import { createHash } from 'node:crypto';
import {
  applyDecorators,
  CallHandler,
  createParamDecorator,
  ExecutionContext,
  HttpStatus,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { catchError, from, mergeMap, Observable, of } from 'rxjs';
import { Principal } from '../auth/principal';
import { canonicalJson } from '../canonical-json';
import { ProblemExample } from '../http/openapi.decorators';
import { ProblemException, validationFailed } from '../http/problem';
import { Fingerprints, IdempotencyKeys, IdempotentRequest } from './idempotency-keys';

const IDEMPOTENT = 'agentline:idempotent';
/** Stripe's rule: up to 255 characters; printable ASCII, so it can be logged and compared as is. */
const KEY = /^[\x21-\x7e]{1,255}$/;

const KEY_REUSED =
  'This Idempotency-Key was used with another request in the last 24 hours; use a new key for a new request.';
const KEY_IN_USE =
  'A request with this Idempotency-Key is still being handled; retry once it has answered.';
/**
 * Seconds a `409 idempotency_key_in_use` asks the caller to wait: a request answers in well under
 * a second, and one whose process died is taken over after 2 minutes (IN_PROGRESS_MS), which a
 * retry every second reaches without the caller having to know it.
 */
export const IN_USE_RETRY_AFTER_SECONDS = 1;

/**
 * What makes two requests "the same": the method, the path and the body as JSON, so that the same
 * body with its fields in another order (or `1.0` for `1`) is the same request; and the body as
 * parsed, in its order, which earlier versions compare: see Fingerprints.
 */
export function requestFingerprints(method: string, url: string, body: unknown): Fingerprints {
  const digest = (text: string) =>
    createHash('sha256').update(`${method} ${url}\n${text}`).digest('base64url');
  let nonFinite = false;
  const asSent = JSON.stringify(body ?? null, (_key, value: unknown) => {
    if (typeof value === 'number' && !Number.isFinite(value)) nonFinite = true;
    return value;
  });
  const canonical = canonicalJson(body);
  // JSON.stringify writes 1e400 (Infinity) as null: such a body's raw fingerprint is the
  // canonical text's, which tells them apart (earlier versions then answer it 422, not a replay).
  return { raw: digest(nonFinite ? canonical : asSent), canonical: digest(canonical) };
}

/**
 * For POSTs that create or send: an `Idempotency-Key` makes a retry safe. Stripe's semantics:
 * the same key and request (method, path, and body compared as JSON) within 24 hours answer what
 * the first one answered (`Idempotent-Replayed: true`); the same key with another request is `422
 * idempotency_key_reused`; while the first is still running, `409 idempotency_key_in_use` with
 * `Retry-After`. Keys
 * belong to the organization. Only a success is remembered: after an error the key is free, and
 * a retry runs the request again. An operation that creates a resource takes
 * `@CurrentIdempotentRequest()` and records its resource with the key in the creating
 * transaction: a retry after a crash between that commit and the stored answer answers the
 * resource as it is now, and never creates (or sends) it twice.
 */
export const Idempotent = () =>
  applyDecorators(
    SetMetadata(IDEMPOTENT, true),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        "Optional. A new unique string for each new request, up to 255 printable ASCII characters (a fresh UUID, say). Retrying with the same key and the same request (path and body) within 24 hours answers the first response again, with `Idempotent-Replayed: true`, instead of doing the work twice. The same request means the same method, path and body as JSON: the order of an object's fields, spacing and number spelling do not matter. The same key with another request: `422 idempotency_key_reused`; while the first request is still running: `409 idempotency_key_in_use`, with `Retry-After` (seconds). Keys belong to the organization.",
      // No example: Swagger UI would send the same key with every POST it tries.
      schema: { type: 'string', maxLength: 255 },
    }),
  );

const IDEMPOTENT_REQUEST = Symbol('agentline:idempotent-request');
interface IdempotencyHolder {
  [IDEMPOTENT_REQUEST]?: IdempotentRequest;
}

/**
 * The key this request holds, for a service that creates a resource (undefined without an
 * `Idempotency-Key`): it records the resource with the key in one transaction, so a retry after a
 * crash answers that resource instead of creating (or sending) it again.
 */
export const CurrentIdempotentRequest = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IdempotentRequest | undefined =>
    context.switchToHttp().getRequest<IdempotencyHolder>()[IDEMPOTENT_REQUEST],
);

/** The problems an `Idempotency-Key` adds to an operation, for its ApiProblemResponses. */
export const IDEMPOTENCY_PROBLEMS: ProblemExample[] = [
  { code: 'idempotency_key_reused', detail: KEY_REUSED },
  { code: 'idempotency_key_in_use', detail: KEY_IN_USE },
];

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: IdempotencyKeys,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (
      context.getType() !== 'http' ||
      !this.reflector.get<boolean>(IDEMPOTENT, context.getHandler())
    ) {
      return next.handle();
    }
    const request = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    const key = request.headers['idempotency-key'];
    if (key === undefined || !request.user) return next.handle();
    if (typeof key !== 'string' || !KEY.test(key)) {
      throw validationFailed(
        [{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }],
        'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      );
    }
    const response = context.switchToHttp().getResponse<Response>();
    const organizationId = request.user.organizationId;
    const status =
      this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    const fingerprints = requestFingerprints(request.method, request.originalUrl, request.body);

    return from(this.keys.claim(organizationId, key, fingerprints)).pipe(
      mergeMap((claim) => {
        switch (claim.kind) {
          case 'replay':
            response.setHeader('Idempotent-Replayed', 'true');
            return of(JSON.parse(claim.body) as unknown);
          case 'reused':
            throw new ProblemException('idempotency_key_reused', KEY_REUSED);
          case 'in_progress':
            throw new ProblemException('idempotency_key_in_use', KEY_IN_USE, {
              headers: { 'Retry-After': String(IN_USE_RETRY_AFTER_SECONDS) },
            });
          case 'claimed':
            (request as IdempotencyHolder)[IDEMPOTENT_REQUEST] = {
              organizationId,
              key,
              resourceId: claim.resourceId,
            };
            return next.handle().pipe(
              catchError(async (error: unknown) => {
                await this.keys.release(organizationId, key).catch(() => undefined);
                throw error;
              }),
              // After the work: if this write fails, the key stays held (a retry gets 409 until
              // IN_PROGRESS_MS) rather than freed for a second run of work that was done.
              mergeMap(async (body: unknown) => {
                await this.keys.complete(organizationId, key, status, JSON.stringify(body));
                // Its resource was committed by an earlier run: the answer describes that work.
                if (claim.resourceId !== null) response.setHeader('Idempotent-Replayed', 'true');
                return body;
              }),
            );
        }
      }),
    );
  }
}
