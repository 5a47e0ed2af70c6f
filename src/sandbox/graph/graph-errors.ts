import { randomBytes } from 'node:crypto';

/** Meta's error body: `{ error: { message, type, code, error_subcode?, fbtrace_id } }`. */
export interface GraphErrorBody {
  error: {
    message: string;
    type: string;
    code: number;
    fbtrace_id: string;
    [extra: string]: unknown;
  };
}

/** Meta's error body, with a fresh fbtrace_id; `extra` adds or replaces fields (`type`, `error_subcode`, `error_data`). */
export function graphError(
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): GraphErrorBody {
  return {
    error: {
      message,
      type: 'OAuthException',
      code,
      fbtrace_id: `A${randomBytes(9).toString('base64url')}`,
      ...extra,
    },
  };
}

/** An HTTP status with a JSON body: what every stand-in answer is. */
export interface GraphAnswer {
  status: number;
  body: unknown;
}

export const graphRefusal = (
  status: number,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): GraphAnswer => ({ status, body: graphError(code, message, extra) });

/** No token, or not a Bearer one: Graph's 190. */
export const MISSING_TOKEN = (): GraphAnswer =>
  graphRefusal(401, 190, 'Invalid OAuth access token - Cannot parse access token');

/** A token Graph does not know for this object. */
export const INVALID_TOKEN = (): GraphAnswer =>
  graphRefusal(401, 190, 'Error validating access token: The session is invalid.', {
    error_subcode: 460,
  });

/** What Graph answers for an id it does not know (or the token may not see). */
export const unknownObject = (method: 'get' | 'post', id: string): GraphAnswer =>
  graphRefusal(
    400,
    100,
    `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    { type: 'GraphMethodException', error_subcode: 33 },
  );

/** The Bearer token of an Authorization header, or undefined. */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
