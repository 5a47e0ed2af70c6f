import { fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger as Pino } from 'pino';
import { AppConfig } from '../../config/app-config';
import { currentLogContext } from './log-context';

/**
 * Fields of application log lines that can hold a secret: tokens and keys under their usual
 * names, at the top level or one object down (`{ err }`, `{ grant }`), and the headers of a
 * failed third-party call. Application lines are few; access lines hold no secret (see
 * access-log.ts) and skip redaction altogether, so none of this is paid per request.
 */
export const REDACTED_PATHS = [
  'access_token',
  'api_key',
  'app_secret',
  'client_secret',
  'refresh_token',
  'password',
  'secret',
  '*.access_token',
  '*.api_key',
  '*.app_secret',
  '*.client_secret',
  '*.refresh_token',
  '*.password',
  '*.secret',
  '*.headers.authorization',
  '*.headers.cookie',
];

/**
 * LOG_FILE, opened for appending and private to its owner (0600) from the moment it exists: its
 * lines hold organization ids and phone numbers. Created with mode 0600 (no wider whatever the
 * umask), then fchmod-ed, which also narrows a file an older version left 0644. A directory it
 * needs is created 0700.
 */
export function openLogFile(path: string): number {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'a', 0o600);
  fchmodSync(fd, 0o600);
  return fd;
}

/**
 * Where lines go: LOG_FILE when set (tests, or an operator who wants a file); else stdout, as
 * JSON unless stdout is a terminal, where a person reads it (LOG_FORMAT overrides either way).
 */
function destination(config: Pick<AppConfig, 'log'>): DestinationStream {
  if (config.log.file) return pino.destination({ fd: openLogFile(config.log.file), sync: true });
  const pretty =
    config.log.format === 'pretty' || (config.log.format === undefined && process.stdout.isTTY);
  if (pretty) {
    // Loaded only here: a production process never needs it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pinoPretty = require('pino-pretty') as typeof import('pino-pretty');
    return pinoPretty({
      colorize: true,
      sync: true,
      ignore: 'pid,hostname,context,req,res,responseTime',
      // An access line reads `GET /v1/tools 200 3 ms`; any other line `Context: message`.
      messageFormat: (line: Record<string, unknown>, messageKey: string) => {
        const req = line.req as { method?: string; path?: string } | undefined;
        const res = line.res as { statusCode?: number } | undefined;
        if (req && res)
          return `${req.method} ${req.path} ${res.statusCode} ${line.responseTime} ms`;
        return `${line.context ? `${String(line.context)}: ` : ''}${String(line[messageKey])}`;
      },
    });
  }
  return pino.destination({ dest: 1, sync: false });
}

/** The two pino loggers of a process, sharing one destination. */
export interface Loggers {
  /** Application lines: the current LogContext is added, REDACTED_PATHS are blanked. */
  app: Pino;
  /** Access lines: built from fields that never hold a secret, so nothing to redact. */
  access: Pino;
}

export function createLoggers(config: Pick<AppConfig, 'log'>): Loggers {
  const stream = destination(config);
  const base = { level: config.log.level, base: { pid: process.pid } };
  return {
    app: pino(
      {
        ...base,
        redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
        serializers: { err: pino.stdSerializers.err },
        mixin: () => currentLogContext() ?? {},
      },
      stream,
    ),
    access: pino(base, stream),
  };
}

type Level = 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal';

/** Nest's start-up chatter (a line per module and per route): debug, not news at info. */
const BOOT_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/**
 * Nest's LoggerService over pino, for `new Logger(Context)` everywhere. Like nestjs-pino before
 * it, it takes both `logger.warn('text')` and `logger.warn({ err, ...fields }, 'text')`; Nest
 * passes the logger's context as the last parameter.
 */
export class AppLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    if (rest.length > 0 && typeof rest[rest.length - 1] === 'string') fields.context = rest.pop();
    if (level === 'info' && BOOT_CONTEXTS.has(fields.context as string)) level = 'debug';
    if (!this.pino.isLevelEnabled(level)) return;
    const text = rest.find((param): param is string => typeof param === 'string');
    if (level === 'error' && typeof message === 'string' && text !== undefined) {
      // Nest's own error(message, stack): keep the stack as an error's, not as the text.
      const error = new Error(message);
      error.stack = text;
      this.pino.error({ ...fields, err: error }, message);
    } else if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message }, text ?? message.message);
    } else if (message !== null && typeof message === 'object') {
      this.pino[level]({ ...fields, ...(message as Record<string, unknown>) }, text);
    } else {
      this.pino[level](fields, String(message));
    }
  }
}
