import pino from 'pino';
import type { Params } from 'nestjs-pino';
import { AppConfig } from '../../config/app-config';

/**
 * Paths pino blanks out wherever they appear in a log line: bearer tokens, Meta access tokens, tool
 * API keys and anything else that looks like a secret. Bodies are never logged in the first place.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-hub-signature-256"]',
  'res.headers["set-cookie"]',
  '*.access_token',
  '*.api_key',
  '*.client_secret',
  '*.refresh_token',
  '*.password',
  '*.secret',
  'access_token',
  'api_key',
];

/**
 * Readiness probes come every few seconds from every load balancer: a healthy answer is not
 * news, and an outage is logged once by DatabaseAvailability, so `/health` answers stay out of
 * the access log unless something unexpected happens. `503` (the database is away) is a warning:
 * the outage itself is the error, logged once.
 */
export function accessLogLevel(
  url: string | undefined,
  status: number,
  error?: Error,
): pino.LevelWithSilent {
  if ((url ?? '').split('?')[0] === '/health' && (status === 200 || status === 503)) {
    return 'silent';
  }
  if (status === 503) return 'warn';
  return error || status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
}

export function loggerOptions(config: AppConfig): Params {
  const destination = config.log.file
    ? pino.destination({ dest: config.log.file, sync: true, mkdir: true })
    : pino.destination({ dest: 1, sync: false });
  return {
    pinoHttp: [
      {
        level: config.log.level,
        redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
        // Query strings can carry tokens (OAuth2 callbacks); log the path only.
        serializers: {
          req: (req: { id: unknown; method: string; url: string }) => ({
            id: req.id,
            method: req.method,
            path: req.url.split('?')[0],
          }),
        },
        customLogLevel: (req, res, error) => accessLogLevel(req.url, res.statusCode, error),
        // pino-http attaches a made-up error, stack and all, to every 5xx line; a 503 is
        // expected while the database is away and needs no stack.
        customErrorObject: (_req, res, _error, fields: Record<string, unknown>) =>
          res.statusCode === 503 ? { ...fields, err: undefined } : fields,
      },
      destination,
    ],
  };
}
