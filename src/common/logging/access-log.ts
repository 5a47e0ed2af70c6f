import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger as Pino, LevelWithSilent } from 'pino';
import type { Principal } from '../auth/principal';
import { withLogContext } from './log-context';

/** An incoming X-Request-Id is kept when it looks like an id; anything else gets a new one. */
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,127}$/;

/** Enough for any real browser's or SDK's User-Agent; a longer one is cut. */
export const USER_AGENT_MAX_LENGTH = 256;

/**
 * A User-Agent as the access line holds it: at most USER_AGENT_MAX_LENGTH characters (`…` when
 * cut), control characters (C0, DEL, C1: Node lets tab and bytes 0x80-0xFF through) written as
 * `\xHH`, so that a crafted header cannot forge a line or a terminal sequence in any log viewer.
 */
export function loggedUserAgent(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const cut = header.length > USER_AGENT_MAX_LENGTH;
  const kept = cut ? header.slice(0, USER_AGENT_MAX_LENGTH) : header;
  const escaped = kept.replace(
    // eslint-disable-next-line no-control-regex -- matching them is the point
    /[\x00-\x1f\x7f-\x9f]/g,
    (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return cut ? `${escaped}…` : escaped;
}

/** Asked every few seconds by machines; only their failures are news. */
const PROBES = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

/**
 * Readiness probes come every few seconds from every load balancer: a healthy answer is not
 * news, and an outage is logged once (DatabaseAvailability, HealthController), so probe answers
 * stay out of the access log. `503` (the database is away) is a warning: the outage itself is the error.
 */
export function accessLogLevel(path: string, status: number): LevelWithSilent {
  if (PROBES.has(path) && (status === 200 || status === 503)) return 'silent';
  if (status === 503) return 'warn';
  return status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}

/**
 * The first middleware of every request: gives it an id (returned as X-Request-Id and put on
 * every line logged while it runs) and writes one access line when the answer is sent. The line
 * holds the method, the path without its query (query strings can carry OAuth2 codes), the
 * client's address (`req.ip`: the peer, or X-Forwarded-For as far as TRUST_PROXY believes it), its
 * User-Agent (cut and escaped), the status, the time taken and the organization: no header that
 * carries a credential, nothing that can be a secret.
 */
export function accessLog(logger: Pino) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    res.setHeader('X-Request-Id', id);
    // 'close' comes after the answer is sent, or when the client went away first.
    res.once('close', () => {
      const path = req.originalUrl.split('?', 1)[0];
      const level = accessLogLevel(path, res.statusCode);
      if (level === 'silent' || !logger.isLevelEnabled(level)) return;
      const user = (req as Request & { user?: Principal }).user;
      logger[level](
        {
          request_id: id,
          organization_id: user?.organizationId,
          req: {
            method: req.method,
            path,
            remoteAddress: req.ip,
            userAgent: loggedUserAgent(req.headers['user-agent']),
          },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    withLogContext({ request_id: id }, next);
  };
}
