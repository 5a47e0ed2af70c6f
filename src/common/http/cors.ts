import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** What a page may send: the token, JSON, retries' keys, its own request id, MCP's session. */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Request-Id',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
];
const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE'];
/** What a page may read beyond the CORS-safelisted headers: limits, retries, ids, files. */
const EXPOSED_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Location',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Content-Disposition',
  'Mcp-Session-Id',
  'WWW-Authenticate',
];
/** Browsers keep a preflight's answer this long (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** `https://App.example.com:443/` and `https://app.example.com` are one origin; junk is none. */
export function originOf(header: string): string {
  try {
    return new URL(header).origin;
  } catch {
    return '';
  }
}

/**
 * CORS for the pages of CORS_ORIGINS, and for no one else: their requests get
 * `Access-Control-Allow-Origin` with their own origin (never `*`: the API takes bearer tokens),
 * and their preflights are answered here, `204`, before authentication and the rate limit. Any
 * other origin gets no CORS header, so the browser keeps the answer from its page. No
 * `Allow-Credentials`: the token is a header the page sets, not a cookie.
 */
export function cors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (allowed.size === 0) return next();
    // Caches must not give one origin's answer to another.
    res.vary('Origin');
    if (origin === undefined || !allowed.has(originOf(origin))) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS.join(', '));
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS.join(', '));
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      res.status(204).end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
    next();
  };
}
