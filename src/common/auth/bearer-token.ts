import type { IncomingMessage } from 'node:http';

export type BearerToken = { token: string } | { refusal: string };

/**
 * `Bearer`, one space, then the token (RFC 6750 b64token) and nothing else. The scheme is
 * case-insensitive (RFC 7235); anything around the token is refused rather than guessed at.
 */
const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The bearer token of a request, read strictly. Node keeps only the first Authorization header in
 * `req.headers`, so a second one would be silently ignored: the raw headers are counted instead,
 * and a request that carries several is refused (which one a proxy in front of us honours is anyone's
 * guess).
 */
export function readBearerToken(request: IncomingMessage): BearerToken {
  const values: string[] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if (request.rawHeaders[i].toLowerCase() === 'authorization')
      values.push(request.rawHeaders[i + 1]);
  }
  if (values.length === 0) {
    return { refusal: 'The Authorization header must be `Bearer <JWT>`.' };
  }
  if (values.length > 1) {
    return { refusal: 'Send exactly one Authorization header.' };
  }
  const match = BEARER.exec(values[0]);
  if (!match) {
    return {
      refusal: 'The Authorization header must be exactly `Bearer <JWT>`: one space, nothing after.',
    };
  }
  return { token: match[1] };
}

/** The passport-jwt extractor: the token when the header is well formed, else none. */
export const bearerTokenFromRequest = (request: IncomingMessage): string | null => {
  const read = readBearerToken(request);
  return 'token' in read ? read.token : null;
};
