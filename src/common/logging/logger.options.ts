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
        customLogLevel: (_req, res, error) =>
          error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      },
      destination,
    ],
  };
}
